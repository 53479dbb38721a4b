import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { connectStdio, skipReason, useCorpusProject } from './helpers.js';

describe.skipIf(skipReason)(`a cancelled request${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  const corpus = useCorpusProject();

  it('cancelling a first get-docs mid-fetch leaves the server healthy: the next call answers', async () => {
    const { web, project } = corpus;
    const server = await connectStdio(project.configFile);
    try {
      // slow the docs site down so the first fetch is still running when the agent gives up
      const removeDelay = web.setFault({ site: 'fastapi' }, { delayMs: 300 });
      const controller = new AbortController();
      const pending = server.client.callTool(
        { name: 'get-docs', arguments: { libraryId: 'fastapi', topic: 'dependencies with yield' } },
        CallToolResultSchema,
        { signal: controller.signal, timeout: 60_000 },
      );
      setTimeout(() => controller.abort('the agent moved on'), 150);
      await expect(pending).rejects.toThrow();
      removeDelay();
      const next = await server.call('get-docs', { libraryId: 'fastapi', topic: 'dependencies with yield' });
      expect(next.isError).toBeFalsy();
      expect((next.structuredContent as { content: string }).content).toMatch(/yield/);
      const list = await server.call('list-libraries', {});
      expect(list.isError).toBeFalsy();
    } finally {
      await server.close();
    }
  });
});
