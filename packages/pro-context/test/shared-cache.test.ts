import { describe, expect, it } from 'vitest';
import { connectStdio, skipReason, useCorpusProject } from './helpers.js';

/**
 * Two agents on one machine (an editor and a terminal agent, say) each start `pro-context` with the
 * default cache directory: both servers share one SQLite file.
 */
describe.skipIf(skipReason)(
  `two servers sharing one cache directory${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    const corpus = useCorpusProject();

    it('both index and answer the same library at once, and a third server then answers from the cache alone', async () => {
      const { web, project } = corpus;
      const [a, b] = await Promise.all([connectStdio(project.configFile), connectStdio(project.configFile)]);
      const ask = { libraryId: 'fastapi', topic: 'dependencies with yield', maxTokens: 2000 };
      const [first, second] = await Promise.all([a.call('get-docs', ask), b.call('get-docs', ask)]).catch((error) => {
        // a server that died says why on its stderr: show it with the failure
        throw new Error(
          `${String(error)}\nserver A stderr:\n${a.stderr.join('')}\nserver B stderr:\n${b.stderr.join('')}`,
        );
      });
      for (const result of [first, second]) {
        expect(result.isError).toBeFalsy();
        expect((result.structuredContent as { content: string }).content).toMatch(/yield/);
      }
      // each persisted what it indexed into the same file without a lock error
      await Promise.all([a.close(), b.close()]);
      const logs = [...a.stderr, ...b.stderr].join('');
      expect(logs).not.toMatch(/SQLITE_BUSY|database is locked|could not persist/i);

      const before = web.requests.length;
      const c = await connectStdio(project.configFile);
      const again = await c.call('get-docs', ask);
      await c.close();
      expect(again.isError).toBeFalsy();
      expect((again.structuredContent as { cached: boolean }).cached).toBe(true);
      expect((again.structuredContent as { content: string }).content).toBe(
        (first.structuredContent as { content: string }).content,
      );
      expect(web.requests.slice(before).filter((r) => r.site === 'fastapi')).toEqual([]);
    });
  },
);
