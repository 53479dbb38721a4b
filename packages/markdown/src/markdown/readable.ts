import { cleanHeading } from './chunk.js';
import { splitFrontMatter } from './front-matter.js';
import { walkLines } from './headings.js';
import { normalizeMarkdown } from './normalize.js';

/**
 * The markdown read-page returns: the same cleanup the chunker applies before indexing (admonitions,
 * pymdown blocks, content tabs, containers, MDX, front matter…, see `normalizeMarkdown`), plus heading
 * lines without their `{ #anchor }` / attribute-list suffix and inline HTML. Code blocks are left alone.
 */
export function readableMarkdown(markdown: string): string {
  const lines = normalizeMarkdown(markdown).split('\n');
  walkLines(lines, (_line, i, heading) => {
    const text = heading && cleanHeading(heading.raw).text;
    if (heading && text) lines[i] = `${heading.level} ${text}`;
  });
  return lines.join('\n');
}

/** The first H1 of normalized markdown, outside code blocks, cleaned like a heading (only when the page opens with it). */
export function firstH1(markdown: string): string | undefined {
  let found: string | undefined;
  walkLines(markdown.split('\n'), (_line, _i, heading) => {
    if (!heading) return true;
    // only a page that opens with an H1 has one for a title
    if (heading.level !== '#') return false;
    found = cleanHeading(heading.raw).text || undefined;
    return found === undefined;
  });
  return found;
}

/** A page made readable: its markdown, and the titles it gives (its H1, its front matter's `title`). */
export interface ReadablePage {
  markdown: string;
  /** The first H1 of the readable markdown (see {@link firstH1}). */
  h1?: string;
  /** The `title` of the raw page's front matter. */
  frontMatterTitle?: string;
}

/** {@link readableMarkdown} of a raw page, with its titles. */
export function readablePage(raw: string): ReadablePage {
  const markdown = readableMarkdown(raw);
  const h1 = firstH1(markdown);
  const frontMatterTitle = splitFrontMatter(raw).title;
  return { markdown, ...(h1 ? { h1 } : {}), ...(frontMatterTitle ? { frontMatterTitle } : {}) };
}
