import { describe, expect, it } from 'vitest';
import { classifyContent, looksLikeDocumentation } from '../src/html/content-check.js';

const docsHtml = `<!DOCTYPE html><html><head><title>Quickstart - HTTPX</title></head><body><main><h1>Quickstart</h1>
<p>First, start by importing HTTPX and making a request to fetch a page from the web with a plain GET.</p></main></body></html>`;

describe('classifyContent', () => {
  it('accepts HTML, markdown and plain text documentation, telling which it is', () => {
    expect(classifyContent('text/html; charset=utf-8', docsHtml)).toEqual({ ok: true, kind: 'html' });
    expect(classifyContent('text/markdown', '# Title\n\nBody.')).toEqual({ ok: true, kind: 'markdown' });
    expect(classifyContent('text/plain', '# Title\n\nSee [the guide](https://x.test).')).toEqual({
      ok: true,
      kind: 'markdown',
    });
    expect(classifyContent('text/plain', 'Just a plain text file with notes.')).toEqual({ ok: true, kind: 'text' });
    expect(classifyContent(undefined, docsHtml)).toEqual({ ok: true, kind: 'html' });
    expect(classifyContent('text/plain', docsHtml)).toEqual({ ok: true, kind: 'html' });
  });

  it('accepts bytes, decoding them as UTF-8', () => {
    expect(classifyContent('text/markdown', new TextEncoder().encode('# Größe\n\nÜber alles.'))).toEqual({
      ok: true,
      kind: 'markdown',
    });
  });

  it('rejects empty bodies', () => {
    expect(classifyContent('text/html', '')).toMatchObject({ ok: false, reason: 'empty' });
    expect(classifyContent('text/markdown', ' \n\t\n')).toMatchObject({ ok: false, reason: 'empty' });
  });

  it('rejects binary content by media type, signature or control bytes', () => {
    expect(classifyContent('application/pdf', '%PDF-1.7 ...')).toMatchObject({ ok: false, reason: 'binary' });
    expect(classifyContent('image/png', 'x')).toMatchObject({ ok: false, reason: 'binary' });
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
    expect(classifyContent('text/html', png)).toMatchObject({ ok: false, reason: 'binary' });
    const zip = new Uint8Array([0x50, 0x4b, 0x03, 0x04, 20, 0, 0, 0]);
    expect(classifyContent(undefined, zip)).toMatchObject({ ok: false, reason: 'binary' });
    expect(classifyContent('text/plain', 'abc\u0000def')).toMatchObject({ ok: false, reason: 'binary' });
  });

  it('rejects JSON API responses, whatever the media type says', () => {
    expect(classifyContent('application/json', '{"items":[]}')).toMatchObject({ ok: false, reason: 'json' });
    expect(classifyContent('application/problem+json', '{"title":"Not Found"}')).toMatchObject({
      ok: false,
      reason: 'json',
    });
    expect(classifyContent('text/plain', '[{"id": 1}, {"id": 2}]')).toMatchObject({ ok: false, reason: 'json' });
    expect(classifyContent(undefined, '{"message":"rate limited"}')).toMatchObject({ ok: false, reason: 'json' });
  });

  it('does not mistake markdown that starts with a bracket for JSON', () => {
    expect(classifyContent('text/plain', '[Home](/) > Guide\n\n# Guide')).toEqual({ ok: true, kind: 'markdown' });
  });

  it('rejects XML data but not XHTML', () => {
    expect(classifyContent('application/xml', '<?xml version="1.0"?><urlset></urlset>')).toMatchObject({
      ok: false,
      reason: 'xml',
    });
    expect(classifyContent('application/xhtml+xml', docsHtml)).toEqual({ ok: true, kind: 'html' });
  });

  it('rejects login walls and bot challenges', () => {
    const login = `<html><head><title>Sign in · Acme</title></head><body><form action="/session"><input name="login">
      <input type="password" name="password"><button>Sign in</button></form></body></html>`;
    expect(classifyContent('text/html', login)).toMatchObject({ ok: false, reason: 'login-wall' });
    const challenge = `<html><head><title>Just a moment...</title></head><body><p>Enable JavaScript and cookies to continue</p></body></html>`;
    expect(classifyContent('text/html', challenge)).toMatchObject({ ok: false, reason: 'bot-challenge' });
  });

  it('keeps a long documentation page that happens to show a login form', () => {
    const text =
      '<p>Authentication is done with a bearer token sent in the Authorization header of every request.</p>'.repeat(40);
    const page = `<html><head><title>Authentication</title></head><body><main><h1>Authentication</h1>${text}
      <form><input type="password"></form></main></body></html>`;
    expect(classifyContent('text/html', page)).toEqual({ ok: true, kind: 'html' });
  });

  it('rejects an application shell without text', () => {
    const shell =
      '<!DOCTYPE html><html><head><title>App</title><script src="/app.js"></script></head><body><div id="root"></div></body></html>';
    expect(classifyContent('text/html', shell)).toMatchObject({ ok: false, reason: 'no-text' });
  });

  it('explains itself in a message fit for INVALID_CONTENT', () => {
    const verdict = classifyContent('application/json', '{}');
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) expect(verdict.message).toMatch(/JSON/);
  });
});

describe('looksLikeDocumentation', () => {
  it('is the yes/no form of classifyContent', () => {
    expect(looksLikeDocumentation('text/html', docsHtml)).toBe(true);
    expect(looksLikeDocumentation('application/json', '{"a":1}')).toBe(false);
    expect(looksLikeDocumentation('application/octet-stream', 'abc')).toBe(false);
  });
});
