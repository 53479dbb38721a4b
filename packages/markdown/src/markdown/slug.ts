import { replaceBracketLinks, replaceTags } from './inline-scan.js';

/**
 * Heading anchors, in the two flavours documentation sites use. The anchors end up in URLs that agents
 * hand back (`…/page#anchor`, `llms-full.txt#anchor`), so each flavour reproduces its generator exactly and
 * a flavour never changes once released.
 *
 * - `mkdocs` (the default): MkDocs' default `toc` slugify, which also matches GitHub for the common cases.
 *   Inline markdown and HTML are removed (images entirely), letters lose their diacritics, punctuation is
 *   dropped, runs of spaces and hyphens become one `-`; repeated anchors get `_1`, `_2`. Used for the pages
 *   of documentation sites (the engine's chunk anchors, read-page sections, HTML headings).
 * - `github`: GitHub's heading anchors. Links and images become their labels, HTML tags a space, letters
 *   keep their diacritics, punctuation is dropped, each space becomes a `-`; repeated anchors get `-1`,
 *   `-2`. Used for pages cut out of llms.txt / llms-full.txt files (`<file>#<slug>`).
 */
export type SlugFlavour = 'mkdocs' | 'github';

/**
 * The anchor a heading gets in the given flavour (default `mkdocs`); `''` when nothing of the heading
 * survives ({@link createSlugger} then uses `section`).
 *
 * @example slugify('A database dependency with `yield`') === 'a-database-dependency-with-yield'
 * @example slugify('Café: the basics', 'github') === 'café-the-basics'
 */
export function slugify(heading: string, flavour: SlugFlavour = 'mkdocs'): string {
  if (flavour === 'github') {
    return inlinePlainText(heading)
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .trim()
      .replace(/\s+/g, '-');
  }
  const text = headingPlainText(heading)
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(/[^\p{L}\p{N}_\s-]+/gu, '')
    .trim()
    .toLowerCase();
  return text.replace(/[-\s]+/g, '-');
}

/** Plain text of a heading's inline markdown: code spans, links, images, emphasis and HTML tags unwrapped. */
export function headingPlainText(heading: string): string {
  // Images dropped, links and reference links their labels, tags removed: linear scans (inline-scan.ts).
  const label = (text: string) => text;
  let out = replaceBracketLinks(heading, true, '(', () => '');
  out = replaceBracketLinks(out, false, '(', label);
  out = replaceBracketLinks(out, false, '[', label);
  return replaceTags(out, '').replace(/`+/g, '').replace(/\*+/g, '').replace(/\s+/g, ' ').trim();
}

/** Longest input {@link inlinePlainText} reads: titles and sentences, so a bounded prefix keeps its regexes cheap. */
const MAX_INLINE_SCAN_CHARS = 20_000;

/**
 * Plain text of a line of inline markdown, for titles and descriptions (and the `github` slug flavour):
 * links and images become their labels (nested ones too), HTML tags a space, `**strong**` and `__strong__`
 * their text, backslash escapes their character; whitespace is collapsed. Reads at most the first 20 000
 * characters.
 */
export function inlinePlainText(text: string): string {
  let out = text.length > MAX_INLINE_SCAN_CHARS ? text.slice(0, MAX_INLINE_SCAN_CHARS) : text;
  // Links and images become their labels (repeatedly, for nested labels).
  for (let k = 0; k < 3; k++) out = out.replace(/!?\[([^[\]]*)\]\([^()]*(?:\([^()]*\)[^()]*)*\)/g, '$1');
  return replaceTags(out, ' ')
    .replace(/(\*\*|__)(.+?)\1/g, '$2')
    .replace(/\\([[\]()*_`#\\])/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * A per-page slug generator that keeps anchors unique the way the flavour's generator does (`intro`,
 * `intro_1` for MkDocs; `intro`, `intro-1` for GitHub). Explicit anchors are recorded too, so a later
 * generated slug never collides with them.
 */
export interface Slugger {
  /** A unique anchor for `heading` (or for `explicit`, kept as written). */
  slug(heading: string, explicit?: string): string;
}

/** Creates a {@link Slugger} for one page, in the given flavour (default `mkdocs`). */
export function createSlugger(flavour: SlugFlavour = 'mkdocs'): Slugger {
  const seen = new Set<string>();
  const separator = flavour === 'github' ? '-' : '_';
  return {
    slug(heading, explicit) {
      if (explicit) {
        seen.add(explicit);
        return explicit;
      }
      const base = slugify(heading, flavour) || 'section';
      let candidate = base;
      for (let n = 1; seen.has(candidate); n += 1) candidate = `${base}${separator}${n}`;
      seen.add(candidate);
      return candidate;
    },
  };
}
