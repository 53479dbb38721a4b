/**
 * Library-key and topic normalization of `context7.doc` (seed 000): what agents actually send — leading
 * slashes, version suffixes, GitHub URLs, stray quotes, doubled slashes, `<placeholders>`, paths and slugs.
 */

// The trailing run is tried only where it starts (not after another quote or space): linear (issue #25).
const QUOTES = /^[\s"'`‘’“”]+|(?<![\s"'`‘’“”])[\s"'`‘’“”]+$/g;

/** Strips whitespace and stray quotes (`"vercel/next.js"`, `'PPR'`) from both ends. */
export function stripQuotes(text: string): string {
  return text.replace(QUOTES, '');
}

/** A normalized library key: `org/repo`, or a shorthand name to resolve through Context7's search. */
export type NormalizedLibraryKey = { kind: 'key'; key: string } | { kind: 'shorthand'; name: string };

/**
 * `vercel/next.js`, `/vercel/next.js`, `/vercel/next.js/v16.0.3`, `https://github.com/vercel/next.js`,
 * `"vercel/next.js"` and `vercel//next.js` all give `{ kind: 'key', key: 'vercel/next.js' }`; `next.js` (no
 * org) gives `{ kind: 'shorthand', name: 'next.js' }`. A version suffix is dropped (the seed's rule: the key is
 * `org/repo`).
 */
export function normalizeLibraryKey(raw: string): NormalizedLibraryKey {
  let text = stripQuotes(raw);
  const github = /^(?:https?:\/\/)?(?:www\.)?github\.com\/+([^/\s]+)\/+([^/\s#?]+)/i.exec(text);
  if (github) text = `${github[1]}/${(github[2] as string).replace(/\.git$/i, '')}`;
  text = text.replace(/\/{2,}/g, '/').replace(/^\/+|(?<!\/)\/+$/g, '');
  const parts = text.split('/').filter(Boolean);
  if (parts.length >= 2) {
    const project = parts[1] as string;
    const at = project.indexOf('@'); // org/repo@v1 → org/repo (a scan: `/@[^/]*$/` was quadratic on `@@@…`)
    const repo = at < 0 ? project : project.slice(0, at);
    return { kind: 'key', key: `${parts[0]}/${repo}` };
  }
  return { kind: 'shorthand', name: parts[0] ?? '' };
}

/** Prefixes whose hyphen belongs to the word (`pre-rendering`), kept when a path segment becomes words. */
const HYPHENATED_PREFIX = /^(pre|re|non|co|sub|multi|self|auto|semi|anti|post|inter)$/i;

/**
 * The topic Context7 is asked about (seed 000): quotes stripped (`"PPR"` → `PPR`), a `<placeholder>` is the
 * empty topic (general documentation), a path's last meaningful segment becomes words
 * (`app/partial-pre-rendering/index` → `partial pre-rendering`: hyphens after a prefix such as `pre` stay, as
 * in a title), and a kebab-case slug becomes words (`partial-pre-rendering` → `partial pre rendering`).
 */
export function normalizeTopic(raw: string | undefined): string {
  let text = stripQuotes(raw ?? '');
  if (/^<[^<>]*>$/.test(text)) return '';
  if (text.includes('/') && !/\s/.test(text)) {
    const segments = text
      .split('/')
      .map((s) => s.replace(/\.(md|mdx|html?|txt)$/i, ''))
      .filter((s) => s && !/^(index|readme|docs?|app|pages|src)$/i.test(s));
    const last = segments.at(-1) ?? '';
    const words = last.split(/[-_]/).filter(Boolean);
    let out = words[0] ?? '';
    for (let i = 1; i < words.length; i++) {
      out += HYPHENATED_PREFIX.test(words[i - 1] as string) ? `-${words[i]}` : ` ${words[i]}`;
    }
    return out;
  }
  if (/^[A-Za-z0-9]+(?:-[A-Za-z0-9]+)+$/.test(text)) text = text.replace(/-/g, ' ');
  return text.trim();
}

/** `page` and `limit` clamped to 1..10 (seed 000); anything not a number is the default. */
export function clamp(value: number | undefined, fallback: number): number {
  if (value === undefined || !Number.isFinite(value)) return fallback;
  return Math.min(10, Math.max(1, Math.trunc(value)));
}
