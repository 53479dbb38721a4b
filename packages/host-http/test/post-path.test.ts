import { createTestKernel } from '@pro-context/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { type HttpServerHandle, serveHttp } from '../src/index.js';
import { initialize, post, rawRequest } from './helpers.js';

const handles: HttpServerHandle[] = [];
afterEach(async () => {
  await Promise.all(handles.splice(0).map((h) => h.close()));
});

/** POST /mcp skips Express: the same Origin check and CORS headers as the `cors` middleware sets elsewhere. */
describe('POST /mcp with configured CORS origins', () => {
  it('refuses a foreign Origin, reflects a listed one, and preflights still answer', async () => {
    const kernel = await createTestKernel();
    const handle = await serveHttp(kernel, {
      name: 'pro-context',
      version: '0.0.0-test',
      port: 0,
      auth: 'none',
      corsOrigins: ['https://app.example'],
    });
    handles.push(handle);
    const url = new URL(`${handle.url}/mcp`);

    const evil = await post(url, initialize, { Origin: 'https://evil.example' });
    expect(evil.status).toBe(403);
    expect(evil.text).toContain('Origin not allowed: https://evil.example');

    const app = await post(url, initialize, { Origin: 'https://app.example' });
    expect(app.status).toBe(200);
    expect(app.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(app.headers.get('vary')).toContain('Origin');
    expect(app.headers.get('access-control-expose-headers')).toContain('Mcp-Session-Id');

    // no Origin (a non-browser client): no Allow-Origin, the rest as before
    const plain = await post(url, initialize);
    expect(plain.status).toBe(200);
    expect(plain.headers.get('access-control-allow-origin')).toBeNull();

    const preflight = await rawRequest(url, {
      method: 'OPTIONS',
      headers: { Origin: 'https://app.example', 'Access-Control-Request-Method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-methods']).toBe('GET,POST,DELETE,OPTIONS');
    expect(preflight.headers['access-control-allow-origin']).toBe('https://app.example');

    // other paths and methods still go through Express
    expect((await post(new URL(`${handle.url}/other`), initialize)).status).toBe(404);
  });
});
