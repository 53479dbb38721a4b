import { cleanHeading } from './chunk.js';
import { walkLines } from './headings.js';
import { createSlugger, headingPlainText } from './slug.js';

interface Heading {
  offset: number;
  anchor: string;
  explicit: string | undefined;
  text: string;
}

/**
 * Where the section a URL fragment names starts in a page: the character offset of the heading line whose
 * anchor is `fragment`, or `undefined` when no heading has it.
 *
 * Anchors are the ones the chunker gives (so a search result's `url#anchor` lands on its section): an
 * explicit id (`{ #id }`, `[#id]`) when the heading line still carries one, else the heading's slug, made
 * unique per page (`intro`, `intro_1`). Meant for the markdown read-page returns, whose heading lines are
 * already cleaned (explicit ids removed); the offsets are into exactly the string given. When nothing
 * matches exactly, headings are compared by letters and digits only, ignoring case, because other tools
 * slug differently (`exclude_unset` stays `exclude_unset` on MkDocs but is `excludeunset` here; an author's
 * explicit `union-in-python-3-10` names the heading `` `Union` in Python 3.10 ``).
 *
 * @param fragment The URL fragment, with or without its `#`, percent-encoded or not.
 */
export function sectionOffset(markdown: string, fragment: string): number | undefined {
  const wanted = decodeFragment(fragment.replace(/^#/, '')).trim();
  if (!wanted) return undefined;
  const headings = listHeadings(markdown);
  const exact = headings.find((h) => h.anchor === wanted || h.explicit === wanted);
  if (exact) return exact.offset;

  const key = looseKey(wanted);
  if (!key) return undefined;
  const loose = headings.filter((h) => looseKey(h.anchor) === key || looseKey(headingPlainText(h.text)) === key);
  if (loose.length > 0) return (loose[0] as Heading).offset;
  // A de-duplicated anchor (`intro_1`, GitHub's `intro-1`): the n-th repeat of the heading it is based on.
  const repeat = /^(.*?)[_-](\d+)$/.exec(wanted);
  if (!repeat) return undefined;
  const baseKey = looseKey(repeat[1] as string);
  const same = headings.filter((h) => looseKey(headingPlainText(h.text)) === baseKey);
  return same[Number(repeat[2])]?.offset;
}

/** Headings outside fenced code, with the offset of their line and the anchor the chunker would give them. */
function listHeadings(markdown: string): Heading[] {
  const slugger = createSlugger();
  const headings: Heading[] = [];
  const lines = markdown.split('\n');
  let offset = 0;
  walkLines(lines, (line, _index, heading) => {
    const start = offset;
    offset += line.length + 1;
    if (!heading) return;
    const { text, explicitAnchor } = cleanHeading(heading.raw);
    if (!text) return;
    headings.push({ offset: start, anchor: slugger.slug(text, explicitAnchor), explicit: explicitAnchor, text });
  });
  return headings;
}

/** Letters and digits only, lower-cased, diacritics dropped: what two tools' slugs of one heading share. */
function looseKey(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[^\p{L}\p{N}]+/gu, '')
    .toLowerCase();
}

function decodeFragment(fragment: string): string {
  try {
    return decodeURIComponent(fragment);
  } catch {
    return fragment;
  }
}
