import type { ReplicaEvent } from '@pro-context/engine/api';
import { createAnswerRevisions } from '@pro-context/runtime';
import { describe, expect, it } from 'vitest';
import { PostgresLeases, PostgresReplicaEvents } from '../src/index.js';
import { freshSchema, openDatabase, skipReason } from './helpers.js';

const until = async (check: () => boolean, ms = 5000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

describe.skipIf(skipReason)(`postgres-store across replicas${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  it('one replica gets an indexing lease; the other waits and gets it after the release', async () => {
    const schema = freshSchema();
    const a = new PostgresLeases(openDatabase(schema, 'a'));
    const b = new PostgresLeases(openDatabase(schema, 'b'));
    const [first, second] = await Promise.all([
      a.acquire('index:fastapi@1', 30_000),
      b.acquire('index:fastapi@1', 30_000),
    ]);
    expect([first, second].filter(Boolean)).toHaveLength(1);
    const holder = (first ?? second)!;
    const other = first ? b : a;
    expect(await other.waitFor('index:fastapi@1', 100)).toBe(false);
    const waiting = other.waitFor('index:fastapi@1', 10_000);
    await holder.release();
    expect(holder.held()).toBe(false);
    expect(await waiting).toBe(true);
    expect(await other.acquire('index:fastapi@1', 30_000)).toBeDefined();
  });

  it('a holder that stops renewing (a killed replica) loses the lease on expiry; a live holder keeps it', async () => {
    const schema = freshSchema();
    const db = openDatabase(schema, 'killed');
    const killed = new PostgresLeases(db);
    const live = new PostgresLeases(openDatabase(schema, 'live'));
    const other = new PostgresLeases(openDatabase(schema, 'other'));
    await killed.acquire('index:a', 300);
    const kept = await live.acquire('index:b', 300);
    // "kill" it: its pool closes, so no renewal reaches the database
    await db.close();
    expect(await other.acquire('index:a', 300)).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(await other.acquire('index:a', 30_000)).toBeDefined();
    // renewed every 100 ms, the live one is still held after twice its ttl
    expect(await other.acquire('index:b', 30_000)).toBeUndefined();
    expect(kept?.held()).toBe(true);
    await kept?.release();
  });

  it('LISTEN/NOTIFY: a revision bumped on one replica bumps the others; library events reach subscribers', async () => {
    const schema = freshSchema();
    const revA = createAnswerRevisions();
    const revB = createAnswerRevisions();
    const a = new PostgresReplicaEvents(openDatabase(schema, 'a'), revA);
    const b = new PostgresReplicaEvents(openDatabase(schema, 'b'), revB);
    await a.start();
    await b.start();
    const seen: ReplicaEvent[] = [];
    b.subscribe((event) => seen.push(event));
    const own: ReplicaEvent[] = [];
    a.subscribe((event) => own.push(event));

    revA.bump('docs refreshed: fastapi');
    await until(() => revB.current() === 1);
    // not echoed back: A bumped once, by itself
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(revA.current()).toBe(1);

    a.publish({ kind: 'library', libraryId: 'fastapi', reason: 're-indexed' });
    await until(() => seen.length === 1);
    expect(seen[0]).toEqual({ kind: 'library', libraryId: 'fastapi', reason: 're-indexed' });
    expect(revB.current()).toBe(2);
    expect(own).toEqual([]);
    await a.stop();
    await b.stop();
  });
});
