/**
 * @pro-context/plugin-project: project auto-detection — the dependencies of the working directory (Python and
 * JavaScript manifests and lockfiles) at their installed versions, as a `LibraryProvider` and as the
 * `projectDependenciesToken` service of `@pro-context/plugin-kit`.
 *
 * Every export here is public API; named exports only.
 */
export {
  type DetectedLibrary,
  type DetectOptions,
  detectProject,
  findProjectRoot,
  PROJECT_MARKERS,
  type ProjectRoot,
} from './detect.js';
export type { Ecosystem, FoundDependency, ParsedFile } from './parsers.js';
export {
  LOCKFILES,
  normalizePypiName,
  PARSERS,
  parseBunLock,
  parsePackageJson,
  parsePackageLock,
  parsePipfile,
  parsePipfileLock,
  parsePnpmLock,
  parsePoetryLock,
  parsePyproject,
  parseRequirements,
  parserFor,
  parseUvLock,
  parseYarnLock,
  pep508,
} from './parsers.js';
export { projectPlugin } from './plugin.js';
export { ProjectLibraryProvider, type ProjectLocation, toDescriptor } from './provider.js';
