import { realpath } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { localDocsErrors, localDocsMessages } from './options.js';

/** Whether `child` is `root` or inside it (both absolute, already normalized). */
export function isInside(root: string, child: string): boolean {
  const rel = relative(root, child);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/**
 * The real path of `rel` (a `/`-separated path relative to `root`), refused with `LOCAL_PATH_REFUSED` when it
 * leads out of `root`: by `..` segments, by an absolute path, or through a symbolic link whose target is outside
 * `root`'s real path. A path that does not exist is `PAGE_NOT_FOUND`.
 */
export async function confinedPath(root: string, rel: string): Promise<string> {
  const lexical = resolve(root, rel);
  if (rel.includes('\0') || isAbsolute(rel) || !isInside(resolve(root), lexical)) {
    throw localDocsErrors.create('LOCAL_PATH_REFUSED', { path: rel, root }, { details: { path: rel, root } });
  }
  const realRoot = await realRootOf(root);
  let real: string;
  try {
    real = await realpath(lexical);
  } catch (error) {
    throw localDocsMessages.create('GONE', { rel, root }, { cause: error });
  }
  if (!isInside(realRoot, real)) {
    throw localDocsErrors.create(
      'LOCAL_PATH_REFUSED',
      { path: rel, root },
      { details: { path: rel, root, target: real } },
    );
  }
  return real;
}

/** The real path of a configured root; `LOCAL_PATH_MISSING` when it does not exist. */
export async function realRootOf(root: string): Promise<string> {
  try {
    return await realpath(root);
  } catch (error) {
    throw localDocsErrors.create(
      'LOCAL_PATH_MISSING',
      { path: root, reason: (error as NodeJS.ErrnoException).code ?? String(error) },
      { cause: error },
    );
  }
}
