// Every export here is public API; named exports only.
export type { DetectedDependency, ProjectDependencies } from './project-dependencies.js';
export { dependencyDescriptor, projectDependenciesToken } from './project-dependencies.js';
