import { firstElementInner, stripComments, stripElements } from './strip.js';

/** What a fetched body is, for read-page and source adapters. */
export type ContentKind = 'html' | 'markdown' | 'text';

/** Why a body is not documentation. */
export type NotDocumentationReason = 'empty' | 'binary' | 'json' | 'xml' | 'login-wall' | 'bot-challenge' | 'no-text';

/** The verdict of {@link classifyContent}. */
export type ContentVerdict =
  | { ok: true; kind: ContentKind }
  | { ok: false; reason: NotDocumentationReason; message: string };

const BINARY_TYPES =
  /^(?:image|audio|video|font|model)\/|^application\/(?:octet-stream|pdf|zip|gzip|x-gzip|x-tar|x-7z-compressed|x-rar-compressed|wasm|vnd\.|x-msdownload|java-archive|x-protobuf|protobuf|msgpack|x-sqlite3)/i;
const JSON_TYPES = /^application\/(?:[\w.+-]*\+)?json\b|^text\/json\b/i;
const HTML_TYPES = /^(?:text\/html|application\/xhtml\+xml)\b/i;
const MARKDOWN_TYPES = /^(?:text\/(?:markdown|x-markdown|mdx)|application\/(?:markdown|x-markdown))\b/i;
const XML_TYPES = /^(?:application|text)\/(?:[\w.+-]*\+)?xml\b/i;

// File signatures of common binary formats, checked on the first bytes.
const MAGIC: number[][] = [
  [0x25, 0x50, 0x44, 0x46], // %PDF
  [0x89, 0x50, 0x4e, 0x47], // PNG
  [0xff, 0xd8, 0xff], // JPEG
  [0x47, 0x49, 0x46, 0x38], // GIF
  [0x50, 0x4b, 0x03, 0x04], // ZIP, JAR, DOCX, wheels
  [0x1f, 0x8b], // gzip
  [0x00, 0x61, 0x73, 0x6d], // wasm
  [0x7f, 0x45, 0x4c, 0x46], // ELF
];

const LOGIN_TITLE = /^(?:sign[ -]?in|log[ -]?in|sign[ -]?on|single sign-on)\b/i;
const CHALLENGE =
  /\b(?:just a moment\.\.\.|attention required|checking your browser|verify you are human|are you a robot|enable javascript and cookies to continue|ddos protection by|captcha)\b/i;

/**
 * Decides whether a fetched body is documentation worth converting, and what kind. Not documentation:
 * empty bodies, binary files (by media type, file signature or control bytes), JSON and XML API responses,
 * bot challenges, login walls (a password form on a page with little else), and HTML pages with no text
 * (a JavaScript application shell). The media type wins when it is specific; `text/plain` and a missing
 * type are sniffed, so markdown served as text and HTML served as text are both recognised.
 *
 * `message` says what was found, for an `INVALID_CONTENT` error.
 */
export function classifyContent(contentType: string | undefined | null, body: string | Uint8Array): ContentVerdict {
  const type = (contentType ?? '').trim().toLowerCase();
  if (BINARY_TYPES.test(type)) return reject('binary', `The URL serves a binary file (${type}), not documentation.`);

  let text: string;
  if (typeof body === 'string') {
    text = body;
  } else {
    if (hasBinarySignature(body)) return reject('binary', 'The URL serves a binary file, not documentation.');
    text = new TextDecoder('utf-8', { fatal: false }).decode(body);
  }
  if (looksBinaryText(text)) return reject('binary', 'The URL serves binary data, not documentation.');
  const trimmed = text.replace(/^\uFEFF/, '').trim();
  if (trimmed === '') return reject('empty', 'The page is empty.');

  if (JSON_TYPES.test(type) || (!HTML_TYPES.test(type) && !MARKDOWN_TYPES.test(type) && isJson(trimmed))) {
    return reject('json', 'The URL returns JSON data (an API response), not documentation.');
  }

  const html = HTML_TYPES.test(type) || (!MARKDOWN_TYPES.test(type) && looksLikeHtml(trimmed));
  if (html) return classifyHtml(trimmed);

  if (XML_TYPES.test(type) || /^<\?xml\b/.test(trimmed)) {
    return reject('xml', 'The URL returns XML data, not documentation.');
  }
  if (MARKDOWN_TYPES.test(type) || looksLikeMarkdown(trimmed)) return { ok: true, kind: 'markdown' };
  return { ok: true, kind: 'text' };
}

/** Whether {@link classifyContent} accepts the body as documentation. */
export function looksLikeDocumentation(contentType: string | undefined | null, body: string | Uint8Array): boolean {
  return classifyContent(contentType, body).ok;
}

function reject(reason: NotDocumentationReason, message: string): ContentVerdict {
  return { ok: false, reason, message };
}

function hasBinarySignature(bytes: Uint8Array): boolean {
  return MAGIC.some((sig) => sig.every((b, i) => bytes[i] === b));
}

/** NUL characters, or many control characters in the first 4 KB, mean the text was decoded from binary. */
function looksBinaryText(text: string): boolean {
  const sample = text.slice(0, 4096);
  if (sample.includes('\u0000')) return true;
  let control = 0;
  for (let i = 0; i < sample.length; i += 1) {
    const c = sample.charCodeAt(i);
    if ((c < 9 || (c > 13 && c < 32)) && c !== 27) control += 1;
    else if (c === 0xfffd) control += 1; // replacement characters from invalid UTF-8
  }
  return sample.length > 0 && control / sample.length > 0.05;
}

function isJson(text: string): boolean {
  if (!/^[[{]/.test(text)) return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function looksLikeHtml(text: string): boolean {
  return (
    /^(?:<!doctype html|<html[\s>]|<head[\s>]|<body[\s>])/i.test(text) ||
    /<(?:html|body)[\s>]/i.test(text.slice(0, 2048))
  );
}

function looksLikeMarkdown(text: string): boolean {
  return /^#{1,6} \S|^```|^[ \t]*[-*] \S|\[[^[\]]+\]\([^()]+\)/m.test(text.slice(0, 20_000));
}

/** Visible text of an HTML page, roughly: no tags, scripts, styles or entities. Enough to measure it. */
function visibleText(html: string): string {
  // scans for the raw-text elements and comments: lazy regexes were quadratic in openers never closed
  return stripComments(stripElements(html, ['script', 'style', 'noscript', 'template', 'svg'], ' '), ' ')
    .replace(/<[^<>]+>/g, ' ')
    .replace(/&[#\w]+;/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

function classifyHtml(html: string): ContentVerdict {
  const text = visibleText(html);
  const title = firstElementInner(html, 'title')?.trim() ?? '';
  if (text.length < 2_000 && (CHALLENGE.test(title) || CHALLENGE.test(text.slice(0, 1_000)))) {
    return reject('bot-challenge', 'The site answered with a bot challenge page instead of the documentation.');
  }
  const passwordForm = /<input\b[^<>]*type\s*=\s*["']?password/i.test(html);
  const loginTitle = LOGIN_TITLE.test(title) && /<form\b/i.test(html);
  if ((passwordForm || loginTitle) && text.length < 3_000) {
    return reject('login-wall', 'The page asks to sign in; its documentation is not publicly readable.');
  }
  if (text.length < 40) {
    return reject('no-text', 'The page has no readable text (it may be rendered by JavaScript in the browser).');
  }
  return { ok: true, kind: 'html' };
}
