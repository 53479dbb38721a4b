#!/usr/bin/env node
// `npm run demo [-- <pro-context args>]`: runs the pro-context CLI exactly as a new user does, with NO
// configuration file, and no internet: the real documentation corpora in ../shared/corpora are served on
// loopback under the real hosts of their docs sites (fastapi.tiangolo.com, docs.pydantic.dev, hono.dev…)
// through a loopback HTTPS proxy with a test-only certificate authority, and PyPI and the npm registry are
// loopback fakes. With no arguments it shows a short tour: resolve, get-docs, search, list.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const testing = (file) => import(join(root, 'packages/testing/dist', file));
const { corpusSites, findCorpusRoot, startFakeWeb } = await testing('fake-web/index.js');
const { startFakeProxy } = await testing('fake-proxy.js');
const { fakeNpmPackages, fakePypiProjects, startFakeNpm, startFakePypi } = await testing('fake-registries/index.js');

const corpora = findCorpusRoot();
if (!corpora) {
  console.error('The demo serves ../shared/corpora, which is not beside this repository.');
  process.exit(1);
}
const web = await startFakeWeb({ sites: corpusSites(corpora) });

// versions as PyPI and npm list them (samples), for the corpus libraries the registry fixtures lack
const release = (version, at) => ({ version, uploadedAt: `${at}T12:00:00Z` });
const published = (version, at) => ({ version, publishedAt: `${at}T12:00:00Z` });
const pypi = await startFakePypi([
  ...fakePypiProjects,
  {
    name: 'httpx',
    summary: 'The next generation HTTP client.',
    projectUrls: { Documentation: 'https://www.python-httpx.org', Source: 'https://github.com/encode/httpx' },
    releases: [release('0.27.2', '2024-08-27'), release('0.28.0', '2024-11-28'), release('0.28.1', '2024-12-06')],
  },
  {
    name: 'typer',
    summary: 'Typer, build great CLIs. Easy to code. Based on Python type hints.',
    projectUrls: { Documentation: 'https://typer.tiangolo.com', Repository: 'https://github.com/fastapi/typer' },
    releases: [release('0.15.4', '2025-05-14'), release('0.16.0', '2025-05-26')],
  },
  {
    name: 'instructor',
    summary: 'structured outputs for llm',
    projectUrls: { Documentation: 'https://python.useinstructor.com' },
    releases: [release('1.9.0', '2025-06-10'), release('1.10.0', '2025-07-18')],
  },
  {
    name: 'langgraph',
    summary: 'Building stateful, multi-actor applications with LLMs',
    projectUrls: { Documentation: 'https://docs.langchain.com/oss/python/langgraph' },
    releases: [release('0.5.4', '2025-07-21'), release('0.6.0', '2025-07-28')],
  },
]);
const npm = await startFakeNpm([
  ...fakeNpmPackages,
  {
    name: 'hono',
    homepage: 'https://hono.dev',
    versions: [published('4.7.11', '2025-05-30'), published('4.8.0', '2025-06-18')],
  },
  {
    name: 'vitest',
    homepage: 'https://vitest.dev',
    versions: [published('3.1.4', '2025-05-19'), published('3.2.4', '2025-06-17')],
  },
]);
// the docs hosts the curated registry names for the nine corpus libraries, served from the corpora
const proxy = await startFakeProxy({
  'fastapi.tiangolo.com': web.siteUrl('fastapi'),
  'docs.pydantic.dev/latest': web.siteUrl('pydantic'),
  // pydantic publishes docs per minor version; the fake PyPI's latest pydantic is 2.11.7
  'docs.pydantic.dev/2.11': web.siteUrl('pydantic'),
  'www.python-httpx.org': web.siteUrl('httpx'),
  'typer.tiangolo.com': web.siteUrl('typer'),
  'python.useinstructor.com': web.siteUrl('instructor'),
  'docs.langchain.com': web.siteUrl('langgraph'),
  'hono.dev': web.siteUrl('hono'),
  'vitest.dev': web.siteUrl('vitest'),
  'zod.dev': web.siteUrl('zod'),
});

// an empty working directory and home: no configuration file anywhere, a fresh cache
const dir = mkdtempSync(join(tmpdir(), 'pro-context-demo-'));
const env = {
  ...process.env,
  HOME: dir,
  USERPROFILE: dir,
  PRO_CONTEXT_CACHE_DIR: join(dir, 'cache'),
  PRO_CONTEXT_PYPI_URL: pypi.url,
  PRO_CONTEXT_NPM_URL: npm.url,
  HTTPS_PROXY: proxy.url,
  HTTP_PROXY: proxy.url,
  NO_PROXY: '127.0.0.1',
  NODE_EXTRA_CA_CERTS: proxy.caFile,
};
delete env.PRO_CONTEXT_CONFIG;
console.error(
  [
    'demo: no configuration file. The docs sites of fastapi, pydantic, httpx, typer, instructor, langgraph, hono,',
    `vitest and zod are served from ../shared/corpora through a loopback proxy (${proxy.url}); PyPI and npm are`,
    `loopback fakes; every other host is refused. Loopback pages are allowed by --allow-private-network.`,
    '',
  ].join('\n'),
);

const cli = join(root, 'packages/pro-context/dist/bin/pro-context.js');
const run = (args) =>
  new Promise((resolve) => {
    console.error(`$ pro-context ${args.map((a) => (/\s/.test(a) ? `"${a}"` : a)).join(' ')}`);
    const child = spawn(process.execPath, [cli, '--allow-private-network', ...args], {
      stdio: 'inherit',
      cwd: dir,
      env,
    });
    child.on('exit', (code) => resolve(code ?? 1));
  });

// `{web}` in the arguments stands for the fake web's address, e.g. `read {web}/pydantic/migration/index.md`
const given = process.argv.slice(2).map((a) => a.replaceAll('{web}', web.url.replace(/\/$/, '')));
let status = 0;
const tour = [
  ['resolve', 'fastapy'],
  ['docs', 'fastapi', 'dependencies with yield', '--max-tokens', '1200'],
  ['docs', 'pydantic', 'field validators', '--max-tokens', '1200'],
  ['search', 'hono', 'middleware', '-n', '3'],
  ['libraries', '--category', 'testing', '--language', 'javascript'],
];
for (const args of given.length > 0 ? [given] : tour) {
  status = (await run(args)) || status;
  console.error('');
}
await Promise.all([web.close(), proxy.close(), pypi.close(), npm.close()]);
rmSync(dir, { recursive: true, force: true });
process.exit(status);
