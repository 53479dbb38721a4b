import { describe, expect, it } from 'vitest';
import { PostgresAccessStore } from '../src/index.js';
import { freshSchema, openDatabase, skipReason } from './helpers.js';

describe.skipIf(skipReason)(
  `postgres-store keys, usage, rate limits${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    it('a key revoked through one replica is refused by the other at its next lookup', async () => {
      const schema = freshSchema();
      const a = new PostgresAccessStore(openDatabase(schema, 'a'));
      const b = new PostgresAccessStore(openDatabase(schema, 'b'));
      await a.add({ id: 'key_1', name: 'alice', hash: 'h1', createdAt: 1 });
      await expect(b.add({ id: 'key_2', name: 'alice', hash: 'h2', createdAt: 2 })).rejects.toThrow(/already exists/);
      expect((await b.findByHash('h1'))?.revokedAt).toBeNull();
      await a.revoke('alice', 1234);
      expect((await b.findByHash('h1'))?.revokedAt).toBe(1234);
      expect((await b.list()).map((k) => k.name)).toEqual(['alice']);
      expect((await b.setRateLimit('key_1', { maxRequestsPerMinute: 60, burstSize: 5 }))?.rateLimit).toEqual({
        maxRequestsPerMinute: 60,
        burstSize: 5,
      });
      expect(await b.find('nobody')).toBeUndefined();
    });

    it('usage from two replicas adds up per key and tool', async () => {
      const schema = freshSchema();
      const a = new PostgresAccessStore(openDatabase(schema, 'a'));
      const b = new PostgresAccessStore(openDatabase(schema, 'b'));
      await a.add({ id: 'key_1', name: 'alice', hash: 'h1', createdAt: 1 });
      const delta = (at: number) => ({
        keyId: 'key_1',
        requests: 3,
        errors: 1,
        tools: { 'get-docs': { calls: 2, errors: 1 }, 'search-docs': { calls: 1, errors: 0 } },
        lastUsedAt: at,
      });
      await Promise.all([a.record([delta(100)]), b.record([delta(200)]), a.record([])]);
      const [row] = await b.summary('key_1');
      expect(row).toEqual({
        keyId: 'key_1',
        requests: 6,
        errors: 2,
        toolCalls: { 'get-docs': 4, 'search-docs': 2 },
        toolErrors: { 'get-docs': 2, 'search-docs': 0 },
        lastUsedAt: 200,
      });
      expect((await a.find('alice'))?.lastUsedAt).toBe(200);
    });

    it('one bucket per key across replicas: 40 concurrent charges through two replicas allow exactly the burst', async () => {
      const schema = freshSchema();
      const a = new PostgresAccessStore(openDatabase(schema, 'a'));
      const b = new PostgresAccessStore(openDatabase(schema, 'b'));
      // 1 per minute: nothing refills during the test
      const settings = { maxRequestsPerMinute: 1, burstSize: 10 };
      const decisions = await Promise.all(
        Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? a : b).take('key_1', settings, 1)),
      );
      expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
      const refused = decisions.find((d) => !d.allowed);
      expect(refused?.remaining).toBe(0);
      expect(refused?.limit).toBe(10);
      expect(refused?.retryAfter).toBeGreaterThanOrEqual(1);
      expect(refused?.retryAfter).toBeLessThanOrEqual(60);
      // a revocation forgets the bucket: a new key with the same id would start full
      await b.forget('key_1');
      expect((await a.take('key_1', settings, 1)).remaining).toBe(9);
    });

    it('refills at maxRequestsPerMinute / 60 per second', async () => {
      const store = new PostgresAccessStore(openDatabase());
      const settings = { maxRequestsPerMinute: 120, burstSize: 2 }; // a token every 500 ms
      expect((await store.take('k', settings, 2)).allowed).toBe(true);
      const refused = await store.take('k', settings, 2);
      expect(refused.allowed).toBe(false);
      expect(refused.retryAfter).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 1100));
      expect((await store.take('k', settings, 2)).allowed).toBe(true);
    });
  },
);
