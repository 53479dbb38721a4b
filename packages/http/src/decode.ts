/**
 * Decoding of a response body to text: a byte-order mark first (UTF-8, UTF-16LE, UTF-16BE), then the charset the
 * `Content-Type` header declares, then (HTML only) the charset a `<meta>` in the first 1024 bytes declares, else
 * UTF-8 (windows-1252 when no byte past ASCII forms UTF-8: an undeclared legacy page). Node's `TextDecoder` (full ICU) knows every WHATWG encoding label (`windows-1252`, `shift_jis`,
 * `gb18030`…); an unknown label falls back to UTF-8. Invalid bytes become U+FFFD, never an exception.
 */

/** How many leading bytes are searched for an HTML `<meta charset>` (the HTML standard's prescan length). */
const META_PRESCAN_BYTES = 1024;

/** The encoding a byte-order mark names, and the mark's length. */
function bomEncoding(body: Uint8Array): string | undefined {
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return 'utf-8';
  if (body[0] === 0xff && body[1] === 0xfe) return 'utf-16le';
  if (body[0] === 0xfe && body[1] === 0xff) return 'utf-16be';
  return undefined;
}

/** The `charset` parameter of a `Content-Type` value, unquoted (`text/plain; charset="utf-16"` → `utf-16`). */
export function charsetOf(contentType: string | undefined): string | undefined {
  if (!contentType) return undefined;
  for (const part of contentType.split(';').slice(1)) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim().toLowerCase() !== 'charset') continue;
    const value = part
      .slice(eq + 1)
      .trim()
      .replace(/^"|"$/g, '')
      .trim();
    return value || undefined;
  }
  return undefined;
}

/** The charset an HTML `<meta charset=…>` or `<meta http-equiv="Content-Type" content="…; charset=…">` names. */
function metaCharset(body: Uint8Array): string | undefined {
  // latin1 maps every byte to one character: the ASCII of the markup reads as written, whatever the encoding
  const head = Buffer.from(body.buffer, body.byteOffset, Math.min(body.byteLength, META_PRESCAN_BYTES)).toString(
    'latin1',
  );
  // bounded input (1024 characters), and each pattern has one unbounded run between fixed delimiters
  const direct = /<meta[^>]{0,200}?\bcharset\s{0,10}=\s{0,10}["']?([A-Za-z0-9_.:-]{1,40})/i.exec(head);
  return direct?.[1];
}

/** Whether `TextDecoder` knows `label`; its canonical name if so. */
function supported(label: string | undefined): string | undefined {
  if (!label) return undefined;
  try {
    return new TextDecoder(label).encoding;
  } catch {
    return undefined;
  }
}

/**
 * The encoding to decode `body` with: BOM, then the header's charset, then (for HTML) a meta charset, else
 * `utf-8`. A declared `utf-16` without a BOM is read as little-endian, as browsers do.
 */
export function detectEncoding(body: Uint8Array, contentType?: string): string {
  const bom = bomEncoding(body);
  if (bom) return bom;
  const declared = supported(charsetOf(contentType));
  if (declared) return declared;
  const type = (contentType ?? '').toLowerCase();
  const html = type.includes('html') || (type === '' && body[0] === 0x3c);
  if (html) {
    const meta = supported(metaCharset(body));
    // a meta tag that says UTF-16 was read as ASCII, so the page is not UTF-16 (the HTML standard's rule)
    if (meta && !meta.startsWith('utf-16')) return meta;
  }
  // nothing declared: UTF-8, unless the bytes past ASCII never form UTF-8 (a legacy page: `caf\xE9`), which reads as
  // windows-1252, as browsers read undeclared legacy pages
  return singleByte(body) ? 'windows-1252' : 'utf-8';
}

/**
 * Whether `body` has bytes past ASCII and none of them starts a well-formed UTF-8 sequence: text in a single-byte
 * legacy encoding. A UTF-8 page with a few bad bytes has well-formed sequences too, and stays UTF-8. One pass.
 */
function singleByte(body: Uint8Array): boolean {
  let high = false;
  for (let i = 0; i < body.length; i++) {
    const byte = body[i] as number;
    if (byte < 0x80) continue;
    high = true;
    const length =
      byte >= 0xc2 && byte <= 0xdf ? 1 : byte >= 0xe0 && byte <= 0xef ? 2 : byte >= 0xf0 && byte <= 0xf4 ? 3 : 0;
    if (length === 0 || i + length >= body.length) continue;
    let formed = true;
    for (let k = 1; k <= length; k++) formed &&= ((body[i + k] as number) & 0xc0) === 0x80;
    if (formed) return false;
  }
  return high;
}

/**
 * windows-1252's characters for the bytes 0x80-0x9F (WHATWG's table; `undefined` bytes stay as their C1 code).
 * Node 20's `TextDecoder('windows-1252')` (and its aliases `iso-8859-1`, `latin1`, `ascii`) decodes these bytes
 * as ISO-8859-1 C1 controls instead, so they are mapped here.
 */
const CP1252_HIGH =
  '\u20AC\u0081\u201A\u0192\u201E\u2026\u2020\u2021\u02C6\u2030\u0160\u2039\u0152\u008D\u017D\u008F' +
  '\u0090\u2018\u2019\u201C\u201D\u2022\u2013\u2014\u02DC\u2122\u0161\u203A\u0153\u009D\u017E\u0178';

function decodeWindows1252(body: Uint8Array): string {
  const latin = Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('latin1');
  // one pass over a one-character class: linear
  return latin.replace(/[\u0080-\u009F]/g, (c) => CP1252_HIGH.charAt(c.charCodeAt(0) - 0x80));
}

/** `body` as text, decoded as {@link detectEncoding} decides, without its byte-order mark. */
export function decodeBody(body: Uint8Array, contentType?: string): string {
  const encoding = detectEncoding(body, contentType);
  if (encoding === 'windows-1252') return decodeWindows1252(body);
  return new TextDecoder(encoding).decode(body);
}
