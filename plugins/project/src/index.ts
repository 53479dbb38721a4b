export { type DetectedLibrary, type DetectOptions, detectProject } from './detect.js';
export * from './parsers.js';
export { projectPlugin } from './plugin.js';
export { ProjectLibraryProvider, toDescriptor } from './provider.js';
