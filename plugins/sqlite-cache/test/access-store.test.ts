import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteAccessStore } from '../src/index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('SqliteAccessStore (KeyStore, UsageStore)', () => {
  it('keeps keys by hash in access.db; a second connection (the admin CLI) revokes, the first sees it at once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pc-access-'));
    dirs.push(dir);
    const server = new SqliteAccessStore(dir);
    const admin = new SqliteAccessStore(dir);
    expect(server.file).toBe(join(dir, 'access.db'));
    await admin.add({ id: 'key_1', name: 'alice', hash: 'a'.repeat(64), createdAt: 1 });
    await expect(admin.add({ id: 'key_2', name: 'alice', hash: 'b'.repeat(64), createdAt: 2 })).rejects.toThrow(
      /already exists/,
    );
    expect((await server.findByHash('a'.repeat(64)))?.revokedAt).toBeNull();
    await admin.revoke('alice', 5);
    expect((await server.findByHash('a'.repeat(64)))?.revokedAt).toBe(5);
    await admin.setRateLimit('key_1', { maxRequestsPerMinute: 6, burstSize: 2 });
    expect((await server.find('alice'))?.rateLimit).toEqual({ maxRequestsPerMinute: 6, burstSize: 2 });
    await admin.setRateLimit('alice', null);
    expect((await server.find('key_1'))?.rateLimit).toBeNull();
    expect(await server.find('nobody')).toBeUndefined();
    server.close();
    admin.close();
  });

  it('adds usage deltas to the totals and stamps last use on the key', async () => {
    const store = new SqliteAccessStore(':memory:');
    await store.add({ id: 'key_1', name: 'ci', hash: 'c'.repeat(64), createdAt: 1 });
    const delta = {
      keyId: 'key_1',
      requests: 3,
      errors: 1,
      tools: { 'get-docs': { calls: 2, errors: 1 } },
      lastUsedAt: 10,
    };
    await store.record([delta]);
    await store.record([
      {
        ...delta,
        tools: { 'get-docs': { calls: 1, errors: 0 }, 'read-page': { calls: 1, errors: 0 } },
        lastUsedAt: 20,
      },
    ]);
    expect(await store.summary('key_1')).toEqual([
      {
        keyId: 'key_1',
        requests: 6,
        errors: 2,
        toolCalls: { 'get-docs': 3, 'read-page': 1 },
        toolErrors: { 'get-docs': 1, 'read-page': 0 },
        lastUsedAt: 20,
      },
    ]);
    expect((await store.find('ci'))?.lastUsedAt).toBe(20);
    store.close();
  });
});
