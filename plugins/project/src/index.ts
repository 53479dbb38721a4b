export {
  type DetectedLibrary,
  type DetectOptions,
  detectProject,
  findProjectRoot,
  PROJECT_MARKERS,
  type ProjectRoot,
} from './detect.js';
export * from './parsers.js';
export { projectPlugin } from './plugin.js';
export { ProjectLibraryProvider, type ProjectLocation, toDescriptor } from './provider.js';
