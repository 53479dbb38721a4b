import { localDocsMessages } from './options.js';

/**
 * Host of the URLs local documentation is served under (`https://local-docs.invalid/lib/<id>/guide.md`). The
 * `.invalid` top-level domain never resolves (RFC 2606), so such a URL can never reach the network: read-page
 * hands it to this adapter, which reads the file.
 */
export const LOCAL_HOST = 'local-docs.invalid';

/** Which kind of root a local URL is under: a configured library folder or file, an npm or a Python package. */
export type RootKind = 'lib' | 'npm' | 'pypi';

/** A local URL taken apart. */
export interface LocalUrl {
  kind: RootKind;
  /** The library id (`lib`) or the package name (`npm`, `pypi`). */
  key: string;
  /** The path inside the root, `/`-separated, decoded (not yet checked: see `confinedPath`). */
  rel: string;
}

/** The URL of `rel` inside the root `kind`/`key`. */
export function localUrl(kind: RootKind, key: string, rel = ''): string {
  const path = rel
    .split('/')
    .filter((s) => s !== '')
    .map(encodeURIComponent)
    .join('/');
  return `https://${LOCAL_HOST}/${kind}/${encodeURIComponent(key)}/${path}`;
}

/** Whether a URL is a local-docs URL. */
export const isLocalUrl = (url: URL) => url.hostname === LOCAL_HOST;

/** Takes a local URL apart; `PAGE_NOT_FOUND` for one that names no root. */
export function parseLocalUrl(url: URL): LocalUrl {
  const [, kind, key, ...rest] = url.pathname.split('/');
  if (!isLocalUrl(url) || (kind !== 'lib' && kind !== 'npm' && kind !== 'pypi') || !key) {
    throw localDocsMessages.create('NOT_LOCAL_URL', { url: url.href });
  }
  try {
    return { kind, key: decodeURIComponent(key), rel: rest.map(decodeURIComponent).join('/') };
  } catch {
    throw localDocsMessages.create('BAD_ESCAPE', { url: url.href });
  }
}
