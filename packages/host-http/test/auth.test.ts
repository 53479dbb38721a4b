import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { keyStoreToken } from '@pro-context/access';
import { sqliteCachePlugin } from '@pro-context/plugin-sqlite-cache';
import { createTestKernel } from '@pro-context/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiKey, serveHttp } from '../src/index.js';
import { post } from './helpers.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };

describe('the API-key step (auth.ts)', () => {
  it('refuses a missing or malformed key, and a key another process revoked on its very next request', async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), 'pc-auth-'));
    const kernel = await createTestKernel({ plugins: [sqliteCachePlugin], config: { cache: { directory: cacheDir } } });
    const handle = await serveHttp(kernel, { version: '0', port: 0, stateless: true });
    cleanups.push(async () => {
      await handle.close();
      rmSync(cacheDir, { recursive: true, force: true });
    });
    const url = new URL(`${handle.url}/mcp`);
    const { key, record } = await createApiKey(kernel.resolve(keyStoreToken), 'leaver');

    const missing = await post(url, ping);
    expect([missing.status, missing.headers.get('www-authenticate')]).toEqual([401, 'Bearer realm="pro-context"']);
    expect((missing.json() as { error: { data: { code: string } } }).error.data.code).toBe('AUTH_REQUIRED');
    const malformed = await post(url, ping, { Authorization: 'Bearer nope' });
    expect([malformed.status, malformed.headers.get('www-authenticate')]).toEqual([
      401,
      'Bearer realm="pro-context", error="invalid_token"',
    ]);
    const auth = { Authorization: `Bearer ${key}` };
    expect((await post(url, ping, auth)).status).toBe(200);
    expect((await post(url, ping, auth)).status).toBe(200);

    // another process (pro-context-admin on the same cache directory, say) revokes the key
    execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { SqliteAccessStore } from '@pro-context/plugin-sqlite-cache';
         const store = new SqliteAccessStore(${JSON.stringify(cacheDir)});
         if (!(await store.revoke(${JSON.stringify(record.id)}, Date.now()))) process.exit(3);`,
      ],
      { cwd: fileURLToPath(new URL('..', import.meta.url)), stdio: 'pipe' },
    );
    const refused = await post(url, ping, auth);
    expect(refused.status).toBe(401);
    expect((refused.json() as { error: { data: { code: string } } }).error.data.code).toBe('AUTH_INVALID');
  });
});
