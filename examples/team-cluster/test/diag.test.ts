import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FakeWeb } from '@pro-context/testing/fake-web';
import { it } from 'vitest';
import { admin, nginxPath, runLoad, startNginx, startReplica, stopReplica } from '../src/loopback.js';
import { adminPath, cliPath, startCorpusWeb, writeClusterProject } from './helpers.js';

it('diag', async () => {
  const web: FakeWeb = await startCorpusWeb();
  const project = writeClusterProject(web);
  const team = (
    await admin(
      adminPath,
      project.env,
      'keys',
      'create',
      '--name',
      'team',
      '--per-minute',
      '100000000',
      '--burst',
      '10000000',
    )
  ).stdout.trim();
  const r = await startReplica({ cliPath, name: 'a', env: project.env });
  const dir = mkdtempSync(join(tmpdir(), 'pc-nginx-'));
  const n = await startNginx({ binary: (await nginxPath()) as string, dir, upstreams: [r.port] });
  const topics = ['dependencies with yield', 'background tasks', 'path parameters', 'request body', 'security'];
  const body = (i: number) => ({
    name: 'get-docs',
    arguments: { libraryId: 'fastapi', topic: topics[i % topics.length], maxTokens: 2000 },
  });
  await runLoad({ url: `http://127.0.0.1:${r.port}/mcp`, connections: 1, seconds: 2, keyFor: () => team, body });
  for (const c of [1, 20, 200]) {
    const rep = await runLoad({
      url: `http://127.0.0.1:${n.port}/mcp`,
      connections: c,
      seconds: 4,
      keyFor: () => team,
      body,
    });
    console.log(c, rep.requests, rep.requestsPerSecond.toFixed(0), rep.p50Ms, rep.p99Ms, JSON.stringify(rep.statuses));
  }
  console.log(await n.errorLog());
  await n.stop();
  await stopReplica(r);
  await project.cleanup();
  await web.close();
}, 120000);
