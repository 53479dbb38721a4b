import type { htmlToMarkdown } from './html-to-markdown.js';

let loading: Promise<typeof htmlToMarkdown> | undefined;

/**
 * {@link htmlToMarkdown}, loaded on first use: linkedom, Readability and turndown take about 200 ms to import,
 * which a server that never meets an HTML page should not pay at start-up.
 */
export function loadHtmlToMarkdown(): Promise<typeof htmlToMarkdown> {
  loading ??= import('./html-to-markdown.js').then((module) => module.htmlToMarkdown);
  return loading;
}
