import {
  directiveOf,
  hyperlinksAsMarkdown,
  isAdornment,
  referencesAsText,
  replaceClosingColons,
  replaceRoles,
} from './scan.js';

/**
 * reStructuredText → markdown, for documentation read from a repository (Sphinx `docs/*.rst`). What an agent
 * needs of a page survives: section titles (any adornment, levels in order of appearance), literal blocks
 * (`::` and `.. code-block:: lang`) as fenced code with their language, admonitions as bold-labelled
 * paragraphs, inline literals, hyperlinks and Sphinx roles (`:func:\`x\`` → `` `x` ``); directives that render
 * nothing readable (`toctree`, `autoclass`…) are reduced to a line naming them or dropped. It is not a full
 * docutils: tables and substitutions stay as written.
 *
 * Hand-written because the npm packages that parse reStructuredText either fail on Sphinx roles or bring a
 * syntax highlighter and a math renderer with them; this is what indexing needs and no more.
 */
export function rstToMarkdown(rst: string): string {
  const lines = rst.replace(/\r\n?/g, '\n').split('\n');
  const out: string[] = [];
  const levels: string[] = [];
  const levelOf = (key: string) => {
    if (!levels.includes(key)) levels.push(key);
    return Math.min(levels.indexOf(key) + 1, 6);
  };
  const indentOf = (line: string) => /^ */.exec(line)?.[0].length ?? 0;
  /** Reads the indented block after line `i` (blank lines inside kept); returns it dedented and the next index. */
  const block = (start: number, minIndent: number): { body: string[]; next: number } => {
    let i = start;
    const body: string[] = [];
    while (i < lines.length) {
      const line = lines[i] as string;
      if (line.trim() !== '' && indentOf(line) < minIndent) break;
      body.push(line);
      i += 1;
    }
    while (body.length > 0 && (body.at(-1) as string).trim() === '') body.pop();
    while (body.length > 0 && (body[0] as string).trim() === '') body.shift();
    const cut = Math.min(...body.filter((l) => l.trim() !== '').map(indentOf), Number.POSITIVE_INFINITY);
    return { body: body.map((l) => l.slice(Number.isFinite(cut) ? cut : 0)), next: i };
  };
  const fence = (lang: string, body: string[]) => {
    out.push(`\`\`\`${lang}`, ...body, '```', '');
  };

  let i = 0;
  while (i < lines.length) {
    const line = lines[i] as string;
    const next = lines[i + 1];
    const after = lines[i + 2];
    // over- and underlined title
    if (isAdornment(line) && next !== undefined && next.trim() !== '' && after !== undefined && isAdornment(after)) {
      out.push(`${'#'.repeat(levelOf(`over${line[0]}`))} ${inline(next.trim())}`, '');
      i += 3;
      continue;
    }
    // underlined title
    if (
      line.trim() !== '' &&
      indentOf(line) === 0 &&
      next !== undefined &&
      isAdornment(next) &&
      next.trim().length >= Math.min(line.trim().length, 3)
    ) {
      out.push(`${'#'.repeat(levelOf(next[0] as string))} ${inline(line.trim())}`, '');
      i += 2;
      continue;
    }
    const directive = directiveOf(line);
    if (directive) {
      const { indent, name, argument } = directive;
      let j = i + 1;
      // directive options (`:linenos:`)
      while (j < lines.length && /^\s+:[\w-]+:/.test(lines[j] as string)) j += 1;
      const { body, next: end } = block(j, indent.length + 1);
      const kind = name.toLowerCase();
      if (kind === 'code-block' || kind === 'code' || kind === 'sourcecode' || kind === 'literalinclude') {
        if (kind === 'literalinclude') out.push(`(Code from \`${argument}\`.)`, '');
        else fence(argument.trim(), body);
      } else if (
        [
          'note',
          'warning',
          'tip',
          'important',
          'caution',
          'danger',
          'attention',
          'hint',
          'seealso',
          'deprecated',
          'versionadded',
          'versionchanged',
          'admonition',
        ].includes(kind)
      ) {
        const label =
          kind === 'admonition'
            ? argument
            : `${kind[0]?.toUpperCase()}${kind.slice(1)}${argument ? `: ${argument}` : ''}`;
        out.push(`**${inline(label.trim())}**`, '', ...convertNested(body), '');
      } else if (/^(auto\w+|py:\w+|function|class|method|attribute|data|module|exception|currentmodule)$/.test(kind)) {
        out.push(`\`${argument.trim()}\``, '', ...convertNested(body), '');
      } else if (
        kind === 'toctree' ||
        kind === 'contents' ||
        kind === 'index' ||
        kind === 'only' ||
        kind === 'raw' ||
        kind === 'image' ||
        kind === 'figure' ||
        kind === 'include'
      ) {
        // navigation and media: nothing to read
      } else {
        out.push(...convertNested(body), '');
      }
      i = end;
      continue;
    }
    // comments and hyperlink targets
    if (/^\s*\.\.(\s|$)/.test(line)) {
      const { next: end } = block(i + 1, indentOf(line) + 1);
      i = end;
      continue;
    }
    // a paragraph ending in `::` introduces a literal block
    if (/::\s*$/.test(line) && line.trim() !== '') {
      const text = replaceClosingColons(line, line.trim() === '::' ? '' : ':');
      if (text.trim()) out.push(inline(text));
      let j = i + 1;
      while (j < lines.length && (lines[j] as string).trim() === '') j += 1;
      const { body, next: end } = block(j, indentOf(line) + 1);
      out.push('');
      fence(body.some((l) => l.startsWith('>>>')) ? 'pycon' : '', body);
      i = end;
      continue;
    }
    // doctest blocks
    if (/^\s*>>>/.test(line)) {
      const body: string[] = [];
      while (i < lines.length && (lines[i] as string).trim() !== '') body.push((lines[i++] as string).trim());
      fence('pycon', body);
      continue;
    }
    out.push(inline(line.replace(/^(\s*)[-*+] /, '$1- ')));
    i += 1;
  }
  return `${out
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim()}\n`;
}

function convertNested(body: string[]): string[] {
  return rstToMarkdown(body.join('\n')).trimEnd().split('\n');
}

/** Inline markup: literals, roles, hyperlinks, references. */
function inline(text: string): string {
  // roles, hyperlinks and references by linear scans (scan.ts), not lazy regexes that retry on unclosed markup
  const literals = text.replace(/``([^`]+)``/g, '`$1`');
  const roles = replaceRoles(literals, (label, target) => `\`${(label.trim() || target || '').trim()}\``);
  return referencesAsText(hyperlinksAsMarkdown(roles));
}
