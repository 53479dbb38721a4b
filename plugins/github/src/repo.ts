/** A repository on a GitHub host. */
export interface RepoRef {
  owner: string;
  name: string;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9-]*$/;
const REPO = /^[A-Za-z0-9._-]+$/;

/**
 * The repository a library names: `owner/repo`, `github:owner/repo`, or a URL on `webHost` (default
 * `github.com`; `https://github.com/o/r`, `git+https://github.com/o/r.git`, `git@github.com:o/r.git`,
 * `https://github.com/o/r/tree/main/docs`). `undefined` for anything else (another forge, a bare name).
 */
export function parseRepository(value: string | undefined, webHost = 'github.com'): RepoRef | undefined {
  if (!value) return undefined;
  let text = value.trim();
  const hosts = new Set(['github.com', 'www.github.com', webHost.toLowerCase()]);
  const scp = /^git@([^:]+):(.+)$/.exec(text);
  if (scp) {
    if (!hosts.has((scp[1] as string).toLowerCase())) return undefined;
    text = scp[2] as string;
  } else if (/^github:/i.test(text)) {
    text = text.slice('github:'.length);
  } else if (/^[a-z+]+:\/\//i.test(text)) {
    let url: URL;
    try {
      url = new URL(text.replace(/^git\+/i, ''));
    } catch {
      return undefined;
    }
    if (!hosts.has(url.hostname.toLowerCase()) && !hosts.has(url.host.toLowerCase())) return undefined;
    text = url.pathname;
  }
  const [owner, rawName] = text.replace(/^\/+/, '').split('/');
  const name = rawName?.replace(/\.git$/i, '');
  if (!owner || !name || !NAME.test(owner) || !REPO.test(name)) return undefined;
  return { owner, name };
}

const DEFAULT_TAG_FORMATS = ['v{version}', '{version}', '{name}@{version}', '{name}-v{version}', '{name}-{version}'];

/** Names a library's tags may carry (its package names, id and repository name), lower-cased. */
export function tagNamesOf(names: readonly (string | undefined)[]): string[] {
  return [...new Set(names.filter((n): n is string => Boolean(n)).map((n) => n.toLowerCase()))];
}

/** The tag formats to try, the configured one first. */
export function tagFormatsOf(tagFormat: string | undefined): string[] {
  return tagFormat ? [tagFormat] : DEFAULT_TAG_FORMATS;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The tag of `version` among `tags` (`v1.2.3`, `1.2.3`, `name@1.2.3`, `name-v1.2.3`, …, in the order of
 * `formats`), matched case-insensitively. `undefined` when no tag names it.
 */
export function tagFor(
  version: string,
  tags: readonly string[],
  formats: readonly string[],
  names: readonly string[],
): string | undefined {
  const bare = version.replace(/^v(?=\d)/i, '');
  const byLower = new Map(tags.map((t) => [t.toLowerCase(), t]));
  for (const format of formats) {
    const candidates = format.includes('{name}') ? names.map((n) => format.split('{name}').join(n)) : [format];
    for (const candidate of candidates) {
      const tag = byLower.get(candidate.split('{version}').join(bare).toLowerCase());
      if (tag) return tag;
    }
  }
  return undefined;
}

const VERSION_LIKE = /^\d+(\.\d+)*([-.+]?[a-z0-9.]+)?$/i;

/**
 * The versions `tags` name in `formats` (`v1.2.3` → `1.2.3`), each once, in the order of the tags (GitHub lists
 * the newest first). A tag of another package of a monorepo (`other@1.0.0`) names none.
 */
export function versionsOfTags(
  tags: readonly string[],
  formats: readonly string[],
  names: readonly string[],
): string[] {
  const patterns = formats.flatMap((format) => {
    const withNames = format.includes('{name}') ? names.map((n) => format.split('{name}').join(n)) : [format];
    return withNames.map((f) => {
      const [before, after] = f.split('{version}') as [string, string?];
      return new RegExp(`^${escapeRegExp(before)}(.+)${escapeRegExp(after ?? '')}$`, 'i');
    });
  });
  const out: string[] = [];
  for (const tag of tags) {
    for (const pattern of patterns) {
      const version = pattern.exec(tag)?.[1];
      if (version && VERSION_LIKE.test(version)) {
        if (!out.includes(version)) out.push(version);
        break;
      }
    }
  }
  return out;
}
