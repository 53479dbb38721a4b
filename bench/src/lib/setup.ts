import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { type CallToolResult, CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { type FakeGithub, startFakeGithub } from '@pro-context/testing';
import {
  corpusSites,
  type FakeSiteDefinition,
  type FakeWeb,
  findCorpusRoot,
  startFakeWeb,
} from '@pro-context/testing/fake-web';

const require = createRequire(import.meta.url);

/** The built `pro-context` CLI. */
export const cliPath = join(dirname(require.resolve('pro-context/package.json')), 'dist', 'bin', 'pro-context.js');

/** `../shared` beside the repository (or `PRO_CONTEXT_SHARED_DIR`). */
export function sharedDir(): string {
  const corpora = findCorpusRoot();
  if (!corpora) {
    throw new Error(
      '../shared/corpora is missing: the eval and the benchmark read the real corpora from ../shared beside the repository.',
    );
  }
  return resolve(corpora, '..');
}

/** The nine corpora sites served as documentation sites, one library each. */
export const corpusLibraries: { id: string; name: string; site: string; language: string }[] = [
  { id: 'fastapi', name: 'FastAPI', site: 'fastapi', language: 'python' },
  { id: 'pydantic', name: 'Pydantic', site: 'pydantic', language: 'python' },
  { id: 'httpx', name: 'HTTPX', site: 'httpx', language: 'python' },
  { id: 'typer', name: 'Typer', site: 'typer', language: 'python' },
  { id: 'instructor', name: 'Instructor', site: 'instructor', language: 'python' },
  { id: 'langgraph', name: 'LangGraph', site: 'langgraph', language: 'python' },
  { id: 'hono', name: 'Hono', site: 'hono', language: 'javascript' },
  { id: 'vitest', name: 'Vitest', site: 'vitest', language: 'javascript' },
  { id: 'zod', name: 'Zod', site: 'zod', language: 'javascript' },
];

/**
 * The dev-set libraries beyond the shared eval (questions in `bench/eval/`), read the way the engine reads them
 * from the curated registry's entries: from their GitHub repository's docs folder (a loopback GitHub serving the
 * corpus folder as the repository's default branch). ESLint publishes no llms.txt (eslint.org is an HTML site), so
 * the source chain falls through to its repository (`docs/src`). Instructor publishes a self-contained llms.txt
 * (a 23 KB manual with no page links), which would hide its ~250 pages; the eval reads its pages from the
 * repository (`docs`), like ESLint, so the questions measure ranking over many short pages and a blog.
 */
export const devLibraries: { id: string; name: string; language: string; repo: string; docsPath: string }[] = [
  { id: 'eslint', name: 'ESLint', language: 'javascript', repo: 'eslint/eslint', docsPath: 'docs/src' },
  { id: 'instructor', name: 'Instructor', language: 'python', repo: '567-labs/instructor', docsPath: 'docs' },
];

/**
 * Dev-set libraries served by the fake web with an llms.txt, as their sites publish them. React: react.dev publishes an
 * llms.txt (the curated registry's entry), here generated from the `src/content` tree, with markdown pages at
 * `reference/react/useEffect.md` (reference pages titled by one API each, learn guides, a blog, error and warning
 * pages).
 */
export const devSiteLibraries: { id: string; name: string; language: string; site: string }[] = [
  { id: 'react', name: 'React', language: 'javascript', site: 'react' },
];

/** The fake web's sites of {@link devSiteLibraries} (corpora missing on disk are left out). */
function devSites(corpora: string): FakeSiteDefinition[] {
  const react = join(corpora, 'react');
  return existsSync(react)
    ? [
        {
          name: 'react',
          corpusDir: react,
          docsDir: 'src/content',
          title: 'React',
          summary: 'The library for web and native user interfaces',
          nav: { kind: 'tree' },
          urlStyle: 'plain',
        },
      ]
    : [];
}

/** The loopback GitHub of a web started with `dev: true`. */
const devGithubs = new WeakMap<FakeWeb, FakeGithub>();

/**
 * Starts the fake web with every corpus site. `dev: true` also starts a loopback GitHub serving the
 * {@link devLibraries} (then {@link makeProject} configures them, and the web's `fileForUrl` also maps their raw
 * file URLs to corpus files, `docs/src/rules/no-unused-vars.md`).
 */
export async function startWeb(options: { dev?: boolean } = {}): Promise<FakeWeb> {
  const corpora = join(sharedDir(), 'corpora');
  const sites = corpusSites(corpora);
  if (!options.dev) return startFakeWeb({ sites });
  const web = await startFakeWeb({ sites: [...sites, ...devSites(corpora)] });
  const github = await startFakeGithub(
    devLibraries.map((l) => ({ fullName: l.repo, dir: join(corpora, l.id), defaultBranch: 'main' })),
  );
  const prefix = `${github.rawUrl}/`;
  const fileForUrl = (url: string | URL): string | undefined => {
    const href = String(url).split('#')[0]?.split('?')[0] ?? '';
    if (!href.startsWith(prefix)) return web.fileForUrl(url);
    // {rawUrl}/owner/name/ref/path
    const path = href.slice(prefix.length).split('/').slice(3).join('/');
    return path ? decodeURIComponent(path) : undefined;
  };
  const close = async () => {
    await Promise.all([web.close(), github.close()]);
  };
  const wrapped = new Proxy(web, {
    get(target, prop, receiver) {
      if (prop === 'fileForUrl') return fileForUrl;
      if (prop === 'close') return close;
      return Reflect.get(target, prop, receiver);
    },
  });
  devGithubs.set(wrapped, github);
  return wrapped;
}

/** A temporary project: a config naming the corpus libraries on the fake web, and an empty cache. */
export function makeProject(web: FakeWeb, extra: Record<string, unknown> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'pc-bench-'));
  const github = devGithubs.get(web);
  const cacheDir = join(dir, 'cache');
  const config = {
    security: { allowPrivateNetwork: true },
    http: { retryDelaysMs: [50, 100] },
    cache: { directory: cacheDir },
    logging: { level: 'warn' },
    // the corpus libraries only, on the fake web: no curated registry, no package registry asked
    registry: { enabled: false },
    registries: { pypi: { enabled: false }, npm: { enabled: false } },
    // figures stay those of the corpus libraries, wherever the bench runs from
    project: { autoDetect: false },
    libraries: [
      ...corpusLibraries
        .filter((l) => !(github && devLibraries.some((d) => d.id === l.id)))
        .map((l) => ({
          id: l.id,
          name: l.name,
          language: l.language,
          sources: { llmsTxt: { llmsTxtUrl: web.llmsTxtUrl(l.site) } },
        })),
      ...(github
        ? devLibraries.map((l) => ({
            id: l.id,
            name: l.name,
            language: l.language,
            repository: l.repo,
            docsPath: l.docsPath,
          }))
        : []),
      ...(github
        ? devSiteLibraries.map((l) => ({
            id: l.id,
            name: l.name,
            language: l.language,
            sources: { llmsTxt: { llmsTxtUrl: web.llmsTxtUrl(l.site) } },
          }))
        : []),
    ],
    ...(github ? { sources: { github: { apiUrl: github.apiUrl, rawUrl: github.rawUrl } } } : {}),
    ...extra,
  };
  const configFile = join(dir, 'pro-context.config.yaml');
  writeFileSync(configFile, JSON.stringify(config, null, 2));
  return { dir, cacheDir, configFile, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A connected MCP client on a freshly spawned stdio server. */
export interface StdioServer {
  client: Client;
  pid: number | undefined;
  call(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

const pageFieldsEnv = (): Record<string, string> =>
  process.env.PRO_CONTEXT_PAGE_FIELDS ? { PRO_CONTEXT_PAGE_FIELDS: process.env.PRO_CONTEXT_PAGE_FIELDS } : {};

/** Spawns `pro-context` over stdio and connects the MCP SDK client. */
export async function spawnServer(configFile: string, env: Record<string, string> = {}): Promise<StdioServer> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cliPath],
    // PRO_CONTEXT_PAGE_FIELDS (the engine's page-field weights, for measuring) passes through when set
    env: { ...getDefaultEnvironment(), ...pageFieldsEnv(), PRO_CONTEXT_CONFIG: configFile, ...env },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', () => undefined);
  const client = new Client({ name: 'pro-context-bench', version: '0.0.0' });
  await client.connect(transport);
  return {
    client,
    pid: transport.pid ?? undefined,
    async call(name, args) {
      for (;;) {
        const result = (await client.callTool({ name, arguments: args }, CallToolResultSchema, {
          timeout: 120_000,
        })) as CallToolResult;
        const error = errorCode(result);
        if (error?.code === 'INDEXING_IN_PROGRESS') {
          await new Promise((r) => setTimeout(r, 250));
          continue;
        }
        return result;
      }
    },
    close: () => client.close(),
  };
}

/** The catalog error of an `isError` result, if it is one. */
export function errorCode(result: CallToolResult): { code: string; message: string } | undefined {
  if (!result.isError) return undefined;
  try {
    return JSON.parse((result.content[0] as { text: string }).text);
  } catch {
    return { code: 'UNKNOWN', message: (result.content[0] as { text?: string })?.text ?? '' };
  }
}

/** One row of `../shared/eval/*.jsonl`. */
export interface EvalRow {
  id: string;
  library: string;
  question: string;
  file: string;
  heading: string;
  must_contain: string;
  kind: string;
  noise: string | null;
  /**
   * The cause of failure a `bench/eval/causes/` row tests (issue #28): `comparison`, `troubleshooting-question`,
   * `plain-howto`, `option-pages`.
   */
  cause?: string;
  /** A cause row's half: `dev` (ranking may be tuned on it) or `held` (held back: never tuned on, only measured). */
  split?: 'dev' | 'held';
}

/** The libraries of the shared eval (`../shared/eval`): the "shared" rows whose figures stay comparable. */
export const sharedEvalLibraries = ['fastapi', 'pydantic'];

/** `bench/eval/`: this project's own dev questions (`questions-<library>.jsonl`, the shared eval's format). */
export const devEvalDir = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'eval');

/** `bench/eval/causes/`: questions per cause of failure (`questions-<cause>.jsonl`, with `cause` and `split`). */
export const causeEvalDir = join(devEvalDir, 'causes');

function readJsonl(file: string): EvalRow[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as EvalRow);
}

/**
 * Every eval question: the shared ones (FastAPI, Pydantic); with `dev: true` also this project's own
 * (`bench/eval/questions-*.jsonl`, read with a web started with `dev: true`).
 */
export function loadEvalRows(options: { dev?: boolean } = {}): EvalRow[] {
  const dir = join(sharedDir(), 'eval');
  const shared = sharedEvalLibraries.flatMap((l) => readJsonl(join(dir, `questions-${l}.jsonl`)));
  if (!options.dev) return shared;
  const own = readdirSync(devEvalDir)
    .filter((f) => /^questions-.+\.jsonl$/.test(f))
    .sort()
    .flatMap((f) => readJsonl(join(devEvalDir, f)));
  return [...shared, ...own];
}

/** The per-cause questions of `bench/eval/causes/` (issue #28), each with its `cause` and `split`. */
export function loadCauseRows(): EvalRow[] {
  return readdirSync(causeEvalDir)
    .filter((f) => /^questions-.+\.jsonl$/.test(f))
    .sort()
    .flatMap((f) => readJsonl(join(causeEvalDir, f)));
}

/** The odd/even half of a question by the number ending its id (`eslint-07` is odd): tune on one, check on the other. */
export function half(row: Pick<EvalRow, 'id'>): 'odd' | 'even' {
  return Number(row.id.split('-').pop()) % 2 === 1 ? 'odd' : 'even';
}

/** Whitespace- and markup-insensitive text for "does the answer contain the phrase". */
export function normalizeText(text: string): string {
  return text.replace(/[`*_]/g, '').replace(/\s+/g, ' ').toLowerCase();
}

/** Heading text without markdown, for comparing sections. */
export function normalizeHeading(text: string): string {
  return text
    .replace(/\{#[^}]*\}/g, '')
    .replace(/[`*_]/g, '')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
}

export function median(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

/** A plain-text table. */
export function table(headers: string[], rows: (string | number)[][]): string {
  const cells = [headers, ...rows.map((r) => r.map(String))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i] as number)).join('  ');
  return [line(cells[0] as string[]), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join(
    '\n',
  );
}

export const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
