/**
 * The anchor a heading gets, as MkDocs' default `toc` slugify makes it (which also matches GitHub for the
 * common cases): inline markdown and HTML removed, lower-cased, punctuation dropped, runs of spaces and
 * hyphens turned into one `-`. Letters with diacritics lose them; other letters and digits are kept.
 *
 * @example slugify('A database dependency with `yield`') === 'a-database-dependency-with-yield'
 */
export function slugify(heading: string): string {
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
  return heading
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\]\[[^\]]*\]/g, '$1')
    .replace(/<\/?[A-Za-z][^>]*>/g, '')
    .replace(/`+/g, '')
    .replace(/\*+/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * A per-page slug generator that keeps anchors unique the way MkDocs does (`intro`, `intro_1`, `intro_2`).
 * Explicit anchors are recorded too, so a later generated slug never collides with them.
 */
export interface Slugger {
  /** A unique anchor for `heading` (or for `explicit`, kept as written). */
  slug(heading: string, explicit?: string): string;
}

/** Creates a {@link Slugger} for one page. */
export function createSlugger(): Slugger {
  const seen = new Set<string>();
  return {
    slug(heading, explicit) {
      if (explicit) {
        seen.add(explicit);
        return explicit;
      }
      const base = slugify(heading) || 'section';
      let candidate = base;
      for (let n = 1; seen.has(candidate); n += 1) candidate = `${base}_${n}`;
      seen.add(candidate);
      return candidate;
    },
  };
}
