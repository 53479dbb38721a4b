import { afterEach, describe, expect, it } from 'vitest';
import { toPacked } from '../src/protocol.js';
import { WorkerIndexBuilder } from '../src/worker-builder.js';
import { chunk } from './helpers.js';

/** `n` chunks of about 1 KB, each with a word of its own. */
const corpus = (n: number) =>
  Array.from({ length: n }, (_, i) =>
    chunk(`c-${i}`, `Page ${i}`, [`Page ${i}`], `${'lorem ipsum dolor validator '.repeat(30)} own${i}`),
  );

const builders: WorkerIndexBuilder[] = [];
const builderWith = (options: ConstructorParameters<typeof WorkerIndexBuilder>[0]) => {
  const builder = new WorkerIndexBuilder(options);
  builders.push(builder);
  return builder;
};
afterEach(async () => {
  for (const builder of builders.splice(0)) await builder.close();
});

describe('WorkerIndexBuilder', () => {
  it('stops a worker as soon as it has built an index over recycleAboveMB, and builds the next in a new one', async () => {
    const builder = builderWith({ recycleAboveMB: 0.1, idleMs: 60_000 });
    const data = await builder.build(corpus(2000), toPacked, 'english', () => false);
    expect(builder.running).toBe(0);
    expect(data?.chunks).toBe(2000);
    // a streamed build (a session) too, in a new worker
    const session = builder.session('english', () => false);
    expect(builder.running).toBe(1);
    await session.add(corpus(2000).map(toPacked));
    const streamed = await session.finish();
    expect(builder.running).toBe(0);
    expect(streamed?.chunks).toBe(2000);
  });

  it('keeps a worker that built a small index for the next build until it has been idle for idleMs', async () => {
    const builder = builderWith({ idleMs: 60_000 });
    await builder.build(corpus(50), toPacked, 'english', () => false);
    expect(builder.running).toBe(1);
  });
});
