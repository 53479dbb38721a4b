import type { TocEntry } from '@pro-context/kernel';
import type { LibraryToc } from '../resolve-library/toc.js';

/** One TOC entry as a markdown list line, as resolve-library, get-docs' related pages and the TOC resource show it. */
export function tocEntryLine(entry: TocEntry): string {
  return `- [${entry.title}](${entry.url})${entry.description ? ` — ${entry.description}` : ''}`;
}

/** A library's TOC as markdown, for `library://{libraryId}/toc`: by section, each entry a link. */
export function renderTocMarkdown(read: LibraryToc): string {
  if ('error' in read) {
    const { message, suggestion } = read.error;
    return `# ${read.library} Documentation\n\nNo table of contents: ${message}${suggestion ? ` ${suggestion}` : ''}\n`;
  }
  const { toc, version } = read;
  const lines = [`# ${toc.title ?? read.library} Documentation`, ''];
  if (toc.summary) lines.push(`> ${toc.summary}`, '');
  lines.push(`Version ${version}. Read any page with read-page.`, '');
  let section: string | undefined;
  for (const entry of toc.entries) {
    if (entry.section !== section) {
      section = entry.section;
      lines.push('', `## ${section ?? 'Pages'}`);
    }
    lines.push(tocEntryLine(entry));
  }
  return `${lines.join('\n').replace(/\n{3,}/g, '\n\n')}\n`;
}
