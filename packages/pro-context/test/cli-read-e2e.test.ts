import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startLoopbackSite } from '@pro-context/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliPath } from './helpers.js';

const run = promisify(execFile);
const skipReason = existsSync(cliPath) ? undefined : 'packages/pro-context/dist/bin/pro-context.js is not built';

// `pro-context read <url>` on a host several configured libraries document: the page is read at once, not after
// every library of that host was fetched (the reviewer's run waited 12 s while a third library's site was crawled)
describe.skipIf(skipReason)(
  `pro-context read on a host shared by configured libraries${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    let site: Awaited<ReturnType<typeof startLoopbackSite>>;
    const dir = mkdtempSync(join(tmpdir(), 'pc-cli-read-'));

    beforeAll(async () => {
      site = await startLoopbackSite((path, res) => {
        if (path === '/docs/page.md') {
          res.writeHead(200, { 'content-type': 'text/markdown' }).end('# Shared host\n\nThe page asked for.\n');
          return;
        }
        if (path.endsWith('/llms.txt')) {
          // a library's index that would take long to fetch: it must not be waited for
          setTimeout(() => res.writeHead(200, { 'content-type': 'text/plain' }).end('# Slow\n\n## Docs\n'), 3000);
          return;
        }
        res.writeHead(404).end();
      });
      const libraries = ['alpha', 'beta'].map((id) => ({
        id,
        name: id,
        sources: { llmsTxt: { llmsTxtUrl: `${site.origin}/${id}/llms.txt` } },
      }));
      writeFileSync(
        join(dir, 'pro-context.config.yaml'),
        JSON.stringify({
          security: { allowPrivateNetwork: ['127.0.0.1'] },
          cache: { directory: join(dir, 'cache') },
          libraries,
        }),
      );
    });

    afterAll(async () => {
      await site?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('reads the page without fetching the libraries of its host first', async () => {
      const { stdout } = await run(process.execPath, [cliPath, 'read', `${site.origin}/docs/page.md`], {
        cwd: dir,
        env: { PATH: process.env.PATH ?? '', HOME: dir },
        timeout: 60_000,
      });
      expect(stdout).toContain('The page asked for.');
      expect(site.hits.filter((hit) => hit.endsWith('/llms.txt'))).toEqual([]);
    });
  },
);
