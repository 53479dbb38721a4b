import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSilentLogger } from '@pro-context/logging';
import { createKernel } from '@pro-context/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpClient } from '../src/index.js';
import { failure } from './failure.js';

// The kernel turns `http`/`security` config into this package's client: the guard and the limits a user
// configures reach the client the plugins get.

let server: http.Server;
let base = '';
let userAgents: string[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    userAgents.push(String(req.headers['user-agent']));
    res.writeHead(200, { 'content-type': 'text/plain' }).end('hello from loopback');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('createHttpClient handed to createKernel', () => {
  it('refuses loopback by default: the SSRF guard is on in a kernel built from plain config', async () => {
    userAgents = [];
    const kernel = await createKernel({
      logger: createSilentLogger(),
      config: { http: { proxy: false } },
      createHttpClient,
    }).start();
    try {
      const error = await failure(kernel.http.get(base));
      expect(error.code).toBe('URL_NOT_ALLOWED');
      expect(error.message).toContain('loopback');
      expect(userAgents).toEqual([]);
    } finally {
      await kernel.stop();
    }
  });

  it('reaches loopback with security.allowPrivateNetwork, sending the configured User-Agent', async () => {
    userAgents = [];
    const kernel = await createKernel({
      logger: createSilentLogger(),
      config: { http: { proxy: false, userAgent: 'wiring-test/1' }, security: { allowPrivateNetwork: true } },
      createHttpClient,
    }).start();
    try {
      const response = await kernel.http.get(base);
      expect(response.status).toBe(200);
      expect(response.text()).toBe('hello from loopback');
      expect(userAgents).toEqual(['wiring-test/1']);
    } finally {
      await kernel.stop();
    }
  });

  it('applies http.maxBodyBytes from config', async () => {
    const kernel = await createKernel({
      logger: createSilentLogger(),
      config: { http: { proxy: false, maxBodyBytes: 4, retries: 0 }, security: { allowPrivateNetwork: true } },
      createHttpClient,
    }).start();
    try {
      expect((await failure(kernel.http.get(base))).code).toBe('INVALID_CONTENT');
    } finally {
      await kernel.stop();
    }
  });
});
