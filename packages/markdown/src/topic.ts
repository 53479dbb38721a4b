/**
 * Topics as agents write them, made into what a search ranks (seed 000's topic normalization, for every tool):
 * stray quotes go (`"PPR"` → `PPR`), a placeholder is no topic (`<relevant topic>` → empty: general docs), a
 * path or file name is the page it names (`app/partial-pre-rendering/index` → `partial pre-rendering`,
 * `tutorial/dependencies/index.md` → `dependencies`), a slug is its words (`dependencies-with-yield` →
 * `dependencies with yield`). Identifiers and prose are left alone (`model_validator`, `Depends(scope=...)`,
 * `pydantic-settings`, `how do I stream?`).
 */
export interface NormalizedTopic {
  /** The topic to rank with; empty when the agent gave no topic (empty, blank or a placeholder). */
  text: string;
  /** Whether the topic was a path (`a/b/index`): `path` is its segments, as written, file extension dropped. */
  path?: string[];
}

/** Quotes and backticks an agent wraps a topic in (and whitespace). */
const WRAPPING = new Set(['"', "'", '`', '\u2018', '\u2019', '\u201c', '\u201d', ' ']);

/** `text` (whitespace already collapsed to single spaces) without wrapping quotes at either end: a scan, not a regex. */
function unwrap(text: string): string {
  let a = 0;
  let b = text.length;
  while (a < b && WRAPPING.has(text.charAt(a))) a += 1;
  while (b > a && WRAPPING.has(text.charAt(b - 1))) b -= 1;
  return text.slice(a, b);
}
/** `<relevant topic>`, `{topic}`, `[TOPIC]`, `YOUR_TOPIC_HERE`: a template slot left unfilled. */
const PLACEHOLDER =
  /^(?:<[^<>]*>|\{\{?[^{}]*\}?\}|\[[^[\]]*\]|\$\{[^{}]*\}|(?:your|some|relevant|a|the)[ _-]topic(?:[ _-]here)?|topic|todo|tbd|n\/a|none|null|undefined|\.\.\.|…)$/i;
/** Final path segments that name a folder's own page, not a topic. */
const INDEX_SEGMENT = /^(?:index|readme|_index|overview)$/i;
/** A path: segments of slug characters joined by `/` (not a URL, not prose with a slash like "and/or"). */
const PATH = /^\/?(?:[\w.@-]+\/)+[\w.@-]*\/?$/;
/** A slug: lower-case words joined by single hyphens, at least three of them (`dependencies-with-yield`). */
const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+){2,}$/;
/** Prefixes written with a hyphen in English (`pre-rendering`, `re-export`): kept joined when a slug is split. */
const HYPHEN_PREFIXES = new Set([
  'pre',
  'post',
  're',
  'non',
  'co',
  'sub',
  'multi',
  'self',
  'auto',
  'anti',
  'inter',
  'de',
  'un',
]);

/** A slug's words: hyphens become spaces, except after a prefix English hyphenates. */
function slugWords(slug: string): string {
  const parts = slug.split('-').filter(Boolean);
  let out = '';
  parts.forEach((part, i) => {
    if (i === 0) out = part;
    else out += HYPHEN_PREFIXES.has((parts[i - 1] as string).toLowerCase()) ? `-${part}` : ` ${part}`;
  });
  return out;
}

/** Normalizes a topic as seed 000 says (see {@link NormalizedTopic}). */
export function normalizeTopic(topic: string): NormalizedTopic {
  const text = unwrap(topic.replace(/\s+/g, ' ')).trim();
  if (!text || PLACEHOLDER.test(text)) return { text: '' };
  if (PATH.test(text) && !/^[a-z]+:\/\//i.test(text)) {
    const segments = text
      .split('/')
      .filter(Boolean)
      .map((s) => s.replace(/\.(?:md|mdx|html?|rst|txt|ipynb)$/i, ''));
    const named = segments.filter((s) => !INDEX_SEGMENT.test(s));
    const last = named[named.length - 1];
    if (last === undefined) return { text: '', path: segments };
    return { text: slugWords(last.replace(/_/g, '-')), path: segments };
  }
  if (SLUG.test(text)) return { text: slugWords(text) };
  return { text };
}
