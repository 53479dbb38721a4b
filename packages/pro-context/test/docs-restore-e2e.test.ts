import { describe, expect, it } from 'vitest';
import { connectStdio, skipReason, useCorpusProject } from './helpers.js';

interface Answer {
  content: string;
  confidence: number;
  cached: boolean;
}

describe.skipIf(skipReason)(`docs restored from the cache${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  const corpus = useCorpusProject();

  it('after a restart, a topic never asked is answered from the stored blocks and term index, as before it, with nothing fetched', async () => {
    const { web, project } = corpus;
    const first = await connectStdio(project.configFile);
    let before: Answer;
    try {
      await first.call('get-docs', { libraryId: 'httpx', topic: 'timeouts' });
      before = (await first.call('get-docs', { libraryId: 'httpx', topic: 'proxy authentication', maxTokens: 2000 }))
        .structuredContent as unknown as Answer;
    } finally {
      // stdin closes: the server persists blocks, term index and index snapshot before it exits
      await first.close();
    }
    web.clearRequests();
    const again = await connectStdio(project.configFile);
    try {
      // another budget: not the stored answer, ranked again over the restored docs
      const result = await again.call('get-docs', {
        libraryId: 'httpx',
        topic: 'proxy authentication',
        maxTokens: 2001,
      });
      expect(result.isError).toBeFalsy();
      const after = result.structuredContent as unknown as Answer;
      expect(after.cached).toBe(true);
      expect(after.content).toBe(before.content);
      // the query terms weighed from the term index read back from SQLite, as from the one built in the worker
      expect(after.confidence).toBe(before.confidence);
      expect(after.confidence).toBeGreaterThan(0);
      expect(web.requests).toHaveLength(0);
    } finally {
      await again.close();
    }
  });
});
