import { createRequire } from 'node:module';
import { projectConfigSection } from '@pro-context/engine/api';
import { definePlugin, libraryProviderToken, type Resolver } from '@pro-context/kernel';
import { projectDependenciesToken } from '@pro-context/plugin-kit';
import { ProjectLibraryProvider } from './provider.js';

const { version } = createRequire(import.meta.url)('../package.json') as { version: string };

/**
 * Project auto-detection: after start, in the background, scans the project (`project.root`, else the nearest
 * folder with a project file from `project.workingDirectory` up, default the current directory) for Python and JavaScript manifests and lockfiles, and provides the dependencies as
 * libraries at their installed versions. `project.autoDetect: false` turns it off. The `project` section is
 * the engine's (its engine API, `@pro-context/engine/api`). Provides `projectDependenciesToken`
 * (`@pro-context/plugin-kit`): the detected dependencies as a service.
 */
export const projectPlugin = definePlugin({
  id: 'project',
  version,
  description: 'Project auto-detection: the dependencies of the working directory at their installed versions.',
  kernel: '^0.1.0',
  dependsOn: ['engine'],
  environment: [{ variable: 'PRO_CONTEXT_PROJECT', key: 'project.root' }],
  provides: [libraryProviderToken],
  register(context) {
    const provider = new ProjectLibraryProvider();
    context.bindValue(libraryProviderToken, provider);
    // the project's dependencies as a service (local-docs follows them to find them installed)
    context.bindValue(projectDependenciesToken, provider);
  },
  // the scan is work no first answer needs: it runs in the kernel's background phase, once the host answered
  // tools/list (a tool call waits for it to settle); the provider starts it on the next turn and returns
  background(context) {
    const project = projectConfigSection.read(context.config);
    if (!project.autoDetect) return;
    providerOf(context)?.start(project.root ? { root: project.root } : { workingDirectory: project.workingDirectory }, {
      logger: context.logger.child({ component: 'project' }),
    });
  },
  async stop(context) {
    await providerOf(context)?.stop();
  },
});

function providerOf(context: Resolver): ProjectLibraryProvider | undefined {
  return context
    .resolveAll(libraryProviderToken)
    .find((p): p is ProjectLibraryProvider => p instanceof ProjectLibraryProvider);
}

export default projectPlugin;
export { ProjectLibraryProvider, type ProjectLocation } from './provider.js';
