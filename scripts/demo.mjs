#!/usr/bin/env node
// `npm run demo [-- <pro-context args>]`: runs the pro-context CLI against the real documentation corpora
// in ../shared/corpora, served as documentation sites on loopback (no internet needed). With no arguments
// it shows a short tour: list, resolve, get-docs, search.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { corpusSites, findCorpusRoot, startFakeWeb } = await import(
  join(root, 'packages/testing/dist/fake-web/index.js')
);
const corpora = findCorpusRoot();
if (!corpora) {
  console.error('The demo serves ../shared/corpora, which is not beside this repository.');
  process.exit(1);
}
const web = await startFakeWeb({ sites: corpusSites(corpora) });
const dir = mkdtempSync(join(tmpdir(), 'pro-context-demo-'));
const libraries = [
  ['fastapi', 'FastAPI', 'python', 'web'],
  ['pydantic', 'Pydantic', 'python', 'data'],
  ['httpx', 'HTTPX', 'python', 'web'],
  ['typer', 'Typer', 'python', 'cli'],
  ['instructor', 'Instructor', 'python', 'ai'],
  ['langgraph', 'LangGraph', 'python', 'ai'],
  ['hono', 'Hono', 'javascript', 'web'],
  ['vitest', 'Vitest', 'javascript', 'testing'],
  ['zod', 'Zod', 'javascript', 'data'],
].map(([id, name, language, category]) => ({
  id,
  name,
  language,
  categories: [category],
  sources: { llmsTxt: { llmsTxtUrl: web.llmsTxtUrl(id) } },
}));
const config = join(dir, 'pro-context.config.yaml');
writeFileSync(
  config,
  JSON.stringify(
    {
      security: { allowPrivateNetwork: true },
      cache: { directory: join(dir, 'cache') },
      // the nine corpus libraries only, served on 127.0.0.1: no curated registry, no package registry asked
      registry: { enabled: false },
      registries: { pypi: { enabled: false }, npm: { enabled: false } },
      project: { autoDetect: false },
      libraries,
    },
    null,
    2,
  ),
);
console.error(`demo: ../shared/corpora served as documentation sites on ${web.url} (config ${config})\n`);

const cli = join(root, 'packages/pro-context/dist/bin/pro-context.js');
const run = (args) =>
  new Promise((resolve) => {
    console.error(`$ pro-context ${args.map((a) => (/\s/.test(a) ? `"${a}"` : a)).join(' ')}`);
    const child = spawn(process.execPath, [cli, '-c', config, ...args], { stdio: 'inherit' });
    child.on('exit', (code) => resolve(code ?? 1));
  });

// `{web}` in the arguments stands for the fake web's address, e.g. `read {web}/pydantic/migration/index.md`
const given = process.argv.slice(2).map((a) => a.replaceAll('{web}', web.url.replace(/\/$/, '')));
let status = 0;
const tour = [
  ['libraries'],
  ['resolve', 'pydantc'],
  ['docs', 'pydantic', 'field validators', '--max-tokens', '1200'],
  ['search', 'fastapi', 'dependencies with yield', '-n', '3'],
];
for (const args of given.length > 0 ? [given] : tour) {
  status = (await run(args)) || status;
  console.error('');
}
await web.close();
rmSync(dir, { recursive: true, force: true });
process.exit(status);
