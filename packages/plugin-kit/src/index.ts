// Every export here is public API; named exports only.
export type { MessageCatalog, MessageDefinition } from './messages.js';
export { defineMessages, withEnableHint } from './messages.js';
export type { DetectedDependency, ProjectDependencies } from './project-dependencies.js';
export { dependencyDescriptor, projectDependenciesToken } from './project-dependencies.js';
export type {
  RemoteToolOptions,
  RemoteToolOptionsSpec,
  RemoteToolPluginSpec,
  RemoteToolValidatedOptions,
} from './remote-tool.js';
export {
  defineRemoteToolPlugin,
  maskingKey,
  missingKeyMessage,
  remoteToolCacheMinutes,
  remoteToolErrorText,
  remoteToolOptionsShape,
  requireKey,
  withoutBlankKey,
  withoutKey,
} from './remote-tool.js';
