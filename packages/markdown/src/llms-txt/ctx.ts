/**
 * Reader for the XML-wrapped context files of the llms.txt proposal (`llms-ctx.txt`, `llms-ctx-full.txt`,
 * made by `llms_txt2ctx`): `<project title=… summary=…>` holding section elements (`<docs>`, `<api>`,
 * `<optional>`…) that hold `<doc title=… desc=…>` elements with each linked file's content.
 */

/** One `<doc>` element. */
export interface CtxDoc {
  title: string;
  desc?: string;
  /** The doc's own `url`/`href`/`src`/`source` attribute, when it has one (not resolved). */
  url?: string;
  /** The enclosing section element's name (`docs`, `api`, `optional`). */
  section?: string;
  content: string;
}

/** A parsed context file. */
export interface ParsedCtx {
  title?: string;
  summary?: string;
  details?: string;
  docs: CtxDoc[];
  /** Title → URL pairs printed before the `<project>` element (llms_txt2ctx's verbose output). */
  preambleUrls: Map<string, string>;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code = name[1] === 'x' || name[1] === 'X' ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
      return Number.isFinite(code) && code > 0 && code < 0x110000 ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

function parseAttributes(s: string): Record<string, string> {
  const attrs: Record<string, string> = {};
  for (const m of s.matchAll(/([A-Za-z_:][\w:.-]*)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) {
    attrs[m[1]!.toLowerCase()] = decodeEntities(m[2] ?? m[3] ?? '');
  }
  return attrs;
}

/** A preamble's `{'title': …, 'url': …}` entries are looked for in its first 64 KB, in lines of at most 2,000 characters. */
const MAX_PREAMBLE_CHARS = 65_536;
const MAX_PREAMBLE_LINE = 2_000;

/**
 * The lines of a preamble the title/url pattern reads. The pattern's lazy parts retry from every `'title':` start
 * to the line's end (quadratic in a line's length): capping the line length and the preamble bounds that work.
 */
function preambleLines(text: string): string[] {
  return text
    .slice(0, MAX_PREAMBLE_CHARS)
    .split('\n')
    .filter((line) => line.length <= MAX_PREAMBLE_LINE);
}

/** Whether a text is an llms-ctx file: it has `<doc …>` elements that close. */
export function looksLikeCtx(text: string): boolean {
  return /<doc\s[^<>]*title\s*=/i.test(text) && /<\/doc>/i.test(text);
}

// A structural tag: a name and quoted attributes only (so `<class 'x'>` or `a < b` never match).
const TAG = /<(\/?)([A-Za-z][\w-]*)((?:\s+[A-Za-z_:][\w:.-]*\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>/g;

/**
 * Parses an llms-ctx file. Tags are only looked for between `<doc>` elements; a doc's content runs to
 * the next `</doc>`, so HTML or even a nested `<project>` example inside a doc is content, not structure.
 */
export function parseCtx(text: string): ParsedCtx {
  const docs: CtxDoc[] = [];
  const sections: string[] = [];
  const outside: string[] = [];
  const preambleUrls = new Map<string, string>();
  let title: string | undefined;
  let summary: string | undefined;
  let inProject = false;
  let pos = 0;
  TAG.lastIndex = 0;
  for (let m = TAG.exec(text); m !== null; m = TAG.exec(text)) {
    const [whole, closing, rawName, rawAttrs] = m;
    const name = rawName!.toLowerCase();
    const between = text.slice(pos, m.index);
    if (inProject) outside.push(between);
    else if (!title && docs.length === 0) {
      for (const line of preambleLines(between)) {
        for (const p of line.matchAll(/['"]title['"]\s*:\s*(['"])(.*?)\1\s*,\s*['"]url['"]\s*:\s*(['"])(.*?)\3/g)) {
          preambleUrls.set(p[2]!, p[4]!);
        }
      }
    }
    pos = m.index + whole.length;
    if (name === 'doc' && !closing) {
      const attrs = parseAttributes(rawAttrs ?? '');
      const close = text.toLowerCase().indexOf('</doc>', pos);
      const content = text.slice(pos, close === -1 ? text.length : close);
      pos = close === -1 ? text.length : close + '</doc>'.length;
      TAG.lastIndex = pos;
      const section = sections.at(-1);
      const url = attrs.url ?? attrs.href ?? attrs.src ?? attrs.source;
      docs.push({
        title: (attrs.title ?? '').trim() || `Document ${docs.length + 1}`,
        ...(attrs.desc || attrs.description ? { desc: (attrs.desc ?? attrs.description)!.trim() } : {}),
        ...(url ? { url } : {}),
        ...(section ? { section } : {}),
        content: content.trim(),
      });
      continue;
    }
    if (name === 'project') {
      if (closing) inProject = false;
      else {
        const attrs = parseAttributes(rawAttrs ?? '');
        title ??= attrs.title?.trim() || undefined;
        summary ??= attrs.summary?.trim() || undefined;
        inProject = true;
      }
      continue;
    }
    if (closing) {
      const at = sections.lastIndexOf(name);
      if (at !== -1) sections.length = at;
    } else if (!m[4]) sections.push(name);
  }
  // Text inside <project> but outside docs: a leading `> …` is the summary, the rest details.
  const rest = outside.join('\n').trim();
  const detailLines: string[] = [];
  const quoted: string[] = [];
  for (const line of rest.split('\n')) {
    if (detailLines.length === 0 && /^\s*>/.test(line)) quoted.push(line.replace(/^\s*>\s?/, ''));
    else detailLines.push(line);
  }
  if (!summary && quoted.length > 0) summary = quoted.join(' ').replace(/\s+/g, ' ').trim() || undefined;
  const details = detailLines.join('\n').trim();
  return {
    ...(title ? { title } : {}),
    ...(summary ? { summary } : {}),
    ...(details ? { details } : {}),
    docs,
    preambleUrls,
  };
}
