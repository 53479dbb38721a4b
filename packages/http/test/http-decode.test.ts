import { gzipSync } from 'node:zlib';
import { isProContextError } from '@pro-context/kernel';
import { describe, expect, it } from 'vitest';
import { charsetOf, decodeBody } from '../src/index.js';
import { useLoopbackDocs } from './loopback-docs.js';

// Upstreams are faked on loopback; names resolve through the harness's table, never through real DNS.
const docs = useLoopbackDocs(['docs.test']);
const { routes, makeClient } = docs;

const LLMS =
  '# Pydantic\n\n> Data validation — “typed” ✓\n\n## Docs\n\n- [Models](https://docs.test/models.md): models\n';

function utf16be(text: string): Buffer {
  const le = Buffer.from(text, 'utf16le');
  const be = Buffer.alloc(le.length);
  for (let i = 0; i < le.length; i += 2) {
    be[i] = le[i + 1] as number;
    be[i + 1] = le[i] as number;
  }
  return be;
}

describe('decoding response text (issue #25.6)', () => {
  it('decodes UTF-16LE and UTF-16BE with a byte-order mark, and strips a UTF-8 BOM', async () => {
    const bodies: Record<string, Buffer> = {
      '/le.txt': Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(LLMS, 'utf16le')]),
      '/be.txt': Buffer.concat([Buffer.from([0xfe, 0xff]), utf16be(LLMS)]),
      '/bom8.txt': Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(LLMS, 'utf8')]),
    };
    for (const [path, body] of Object.entries(bodies)) {
      // served as plain text with no charset, the way a static host serves an llms.txt saved as "Unicode"
      routes.set(path, (_req, res) => res.writeHead(200, { 'Content-Type': 'text/plain' }).end(body));
      const response = await makeClient().get(`${docs.base}${path}`);
      expect(response.text()).toBe(LLMS);
    }
  });

  it('decodes the charset the Content-Type declares (windows-1252, UTF-16 without a BOM)', async () => {
    const latin = Buffer.from([0x43, 0x61, 0x66, 0xe9, 0x20, 0x93, 0x71, 0x94]); // Café “q” in windows-1252
    routes.set('/cp1252', (_req, res) =>
      res.writeHead(200, { 'Content-Type': 'text/markdown; charset=windows-1252' }).end(latin),
    );
    routes.set('/u16', (_req, res) =>
      res.writeHead(200, { 'Content-Type': 'text/plain; charset="UTF-16LE"' }).end(Buffer.from(LLMS, 'utf16le')),
    );
    expect((await makeClient().get(`${docs.base}/cp1252`)).text()).toBe('Café “q”');
    expect((await makeClient().get(`${docs.base}/u16`)).text()).toBe(LLMS);
  });

  it("decodes the charset an HTML page's meta tag declares, when the header has none", async () => {
    const html =
      '<!doctype html><html><head><meta charset="shift_jis"><title>t</title></head><body>日本語</body></html>';
    const sjis = new Uint8Array([
      ...Buffer.from('<!doctype html><html><head><meta charset="shift_jis"><title>t</title></head><body>'),
      0x93,
      0xfa,
      0x96,
      0x7b,
      0x8c,
      0xea,
      ...Buffer.from('</body></html>'),
    ]);
    routes.set('/sjis', (_req, res) => res.writeHead(200, { 'Content-Type': 'text/html' }).end(sjis));
    const legacy = Buffer.from(
      '<html><head><meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1"></head><body>na\xefve</body></html>',
      'latin1',
    );
    routes.set('/legacy', (_req, res) => res.writeHead(200, { 'Content-Type': 'text/html' }).end(legacy));
    expect((await makeClient().get(`${docs.base}/sjis`)).text()).toBe(html);
    expect((await makeClient().get(`${docs.base}/legacy`)).text()).toContain('naïve');
  });

  it('reads UTF-8 when nothing is declared or the label is unknown, replacing invalid bytes', () => {
    expect(decodeBody(Buffer.from('plain ✓'))).toBe('plain ✓');
    expect(decodeBody(Buffer.from('plain ✓'), 'text/plain; charset=no-such-charset')).toBe('plain ✓');
    // a UTF-8 page with a bad byte stays UTF-8 (its well-formed sequences say so)
    expect(decodeBody(new Uint8Array([0x61, 0xff, 0x62, 0xc3, 0xa9]))).toBe('a\uFFFDb\u00e9');
  });

  it('reads an undeclared page whose bytes past ASCII never form UTF-8 as windows-1252 (a legacy page)', () => {
    // "café – naïve" in windows-1252, no charset anywhere
    const legacy = new Uint8Array([...Buffer.from('caf'), 0xe9, 0x20, 0x96, 0x20, 0x6e, 0x61, 0xef, 0x76, 0x65]);
    expect(decodeBody(legacy)).toBe('café – naïve');
    expect(decodeBody(legacy, 'text/markdown')).toBe('café – naïve');
    expect(decodeBody(new Uint8Array([0x61, 0xff, 0x62]))).toBe('aÿb');
    // declared UTF-8 is read as UTF-8 whatever the bytes
    expect(decodeBody(legacy, 'text/markdown; charset=utf-8')).toBe('caf\uFFFD \uFFFD na\uFFFDve');
    expect(charsetOf('text/html; Charset = "ISO-8859-1" ; q=1')).toBe('ISO-8859-1');
    expect(charsetOf('text/html')).toBeUndefined();
  });

  it('refuses a body in a content coding it did not ask for, naming the coding (a gzip bomb is never inflated)', async () => {
    // 10 MB of zeros in 10 KB: what a hostile docs page sends to a client that sends no Accept-Encoding
    const bomb = gzipSync(Buffer.alloc(10 * 1024 * 1024));
    routes.set('/bomb.md', (_req, res) =>
      res.writeHead(200, { 'Content-Type': 'text/markdown', 'Content-Encoding': 'gzip' }).end(bomb),
    );
    routes.set('/plain.md', (_req, res) =>
      res.writeHead(200, { 'Content-Type': 'text/markdown', 'Content-Encoding': 'identity' }).end('# Plain'),
    );
    const error = await makeClient()
      .get(`${docs.base}/bomb.md`)
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(isProContextError(error) && error.code).toBe('INVALID_CONTENT');
    expect((error as Error).message).toContain('with Content-Encoding: gzip, which was not asked for');
    expect((error as { details?: { failure?: string } }).details?.failure).toBe('invalid-body');
    expect((await makeClient().get(`${docs.base}/plain.md`)).text()).toBe('# Plain');
    // a caller that asks for a coding gets the bytes as they came
    const asked = await makeClient().get(`${docs.base}/bomb.md`, { headers: { 'accept-encoding': 'gzip' } });
    expect(asked.body.byteLength).toBe(bomb.byteLength);
  });
});
