import { adornmentOf } from './scan.js';

/** What a Python distribution's `METADATA` (core metadata, an email-header format) says. */
export interface DistMetadata {
  name?: string;
  version?: string;
  summary?: string;
  /** `Description-Content-Type`, e.g. `text/markdown`, `text/x-rst`. */
  contentType?: string;
  /** The long description: the message body, else the folded `Description` header. */
  description: string;
}

/** Parses a `METADATA` file (core metadata 1.0–2.4). */
export function parseMetadata(text: string): DistMetadata {
  const normalized = text.replace(/\r\n?/g, '\n');
  const split = normalized.indexOf('\n\n');
  const head = split === -1 ? normalized : normalized.slice(0, split);
  const body = split === -1 ? '' : normalized.slice(split + 2);
  const headers = new Map<string, string>();
  let last: string | undefined;
  for (const line of head.split('\n')) {
    if (/^[ \t]/.test(line) && last) {
      headers.set(last, `${headers.get(last)}\n${line}`);
      continue;
    }
    const m = /^([A-Za-z0-9-]+):[ \t]?(.*)$/.exec(line);
    if (!m) continue;
    last = (m[1] as string).toLowerCase();
    // repeated headers (Classifier) keep the first: only single-valued ones are read
    if (!headers.has(last)) headers.set(last, m[2] as string);
  }
  const folded = headers.get('description');
  // the old header form indents continuation lines with 8 spaces or `|`
  const fromHeader = folded
    ?.split('\n')
    .map((l, i) => (i === 0 ? l : l.replace(/^( {8}|\t|\s*\|)/, '')))
    .join('\n');
  const pick = (key: string) => headers.get(key)?.trim() || undefined;
  const out: DistMetadata = { description: (body.trim() ? body : (fromHeader ?? '')).trim() };
  const name = pick('name');
  const version = pick('version');
  const summary = pick('summary');
  const contentType = pick('description-content-type');
  if (name) out.name = name;
  if (version) out.version = version;
  if (summary) out.summary = summary;
  if (contentType) out.contentType = contentType;
  return out;
}

/**
 * reStructuredText section titles as markdown headings (underlined, optionally overlined; levels in the order
 * the adornment characters first appear), so the chunker and the TOC see the structure. The rest stays as is.
 */
export function rstHeadingsToMarkdown(rst: string): string {
  const lines = rst.split('\n');
  const levels: string[] = [];
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const next = lines[i + 1];
    const over = adornmentOf(line);
    // overline + title + underline
    if (over && next?.trim() && adornmentOf(lines[i + 2] ?? '')) {
      const key = `o${over}`;
      if (!levels.includes(key)) levels.push(key);
      out.push(`${'#'.repeat(Math.min(levels.indexOf(key) + 1, 6))} ${next.trim()}`);
      i += 2;
      continue;
    }
    const under = next === undefined ? undefined : adornmentOf(next);
    if (line.trim() && !over && under && (next as string).trim().length >= line.trim().length) {
      const key = `u${under}`;
      if (!levels.includes(key)) levels.push(key);
      out.push(`${'#'.repeat(Math.min(levels.indexOf(key) + 1, 6))} ${line.trim()}`);
      i += 1;
      continue;
    }
    out.push(line);
  }
  return out.join('\n');
}
