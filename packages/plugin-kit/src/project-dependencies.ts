import { createToken, type LibraryDescriptor, type LibraryProvider } from '@pro-context/kernel';

/** A dependency project detection found in a manifest or a lockfile. */
export interface DetectedDependency {
  ecosystem: 'pypi' | 'npm';
  /** PEP 503-normalized for PyPI; as written for npm. */
  name: string;
  /** The installed version (a lockfile's, or a manifest's exact pin), if any file says. */
  version?: string;
  /** The file that says so, relative to the scanned directory with `/` separators (`uv.lock`, `apps/web/package.json`). */
  detectedFrom: string;
}

/** The languages detected packages are written in, by ecosystem. */
const LANGUAGES = { pypi: 'python', npm: 'javascript' } as const;

/**
 * A detected dependency as a library: id and name the package name (an npm scope's `@` dropped from the id,
 * which allows no `@`), `packages` naming its registry, the installed version and the file it came from.
 * The engine merges it beneath a library another provider already describes (the same package).
 */
export function dependencyDescriptor(detected: DetectedDependency): LibraryDescriptor {
  return {
    id: detected.name.replace(/^@/, ''),
    name: detected.name,
    language: LANGUAGES[detected.ecosystem],
    packages: { [detected.ecosystem]: detected.name },
    ...(detected.name.startsWith('@') ? { aliases: [detected.name] } : {}),
    ...(detected.version ? { installedVersion: detected.version } : {}),
    detectedFrom: detected.detectedFrom,
  };
}

/**
 * The project's dependencies as a service: provided by project detection (`@pro-context/plugin-project`),
 * consumed by plugins that follow them (local-docs finds them installed). `libraries()` are
 * {@link dependencyDescriptor}s; `watch` announces each new scan; `root` is the folder the last scan took as the
 * project (`detectedFrom` is relative to it).
 */
export interface ProjectDependencies extends Pick<LibraryProvider, 'libraries' | 'settled'> {
  watch(onChange: () => void): () => void;
  readonly root?: string | undefined;
}

/** The project's dependencies, when project detection is installed (optional: check `isBound`). */
export const projectDependenciesToken = createToken<ProjectDependencies>('project.dependencies');
