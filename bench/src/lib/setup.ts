import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { type CallToolResult, CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { corpusSites, type FakeWeb, findCorpusRoot, startFakeWeb } from '@pro-context/testing/fake-web';

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

/** Starts the fake web with every corpus site. */
export async function startWeb(): Promise<FakeWeb> {
  return startFakeWeb({ sites: corpusSites(join(sharedDir(), 'corpora')) });
}

/** A temporary project: a config naming the corpus libraries on the fake web, and an empty cache. */
export function makeProject(web: FakeWeb, extra: Record<string, unknown> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'pc-bench-'));
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
    libraries: corpusLibraries.map((l) => ({
      id: l.id,
      name: l.name,
      language: l.language,
      sources: { llmsTxt: { llmsTxtUrl: web.llmsTxtUrl(l.site) } },
    })),
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

/** Spawns `pro-context` over stdio and connects the MCP SDK client. */
export async function spawnServer(configFile: string, env: Record<string, string> = {}): Promise<StdioServer> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cliPath],
    env: { ...getDefaultEnvironment(), PRO_CONTEXT_CONFIG: configFile, ...env },
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
}

/** Every eval question. */
export function loadEvalRows(): EvalRow[] {
  const dir = join(sharedDir(), 'eval');
  return ['questions-fastapi.jsonl', 'questions-pydantic.jsonl'].flatMap((f) =>
    readFileSync(join(dir, f), 'utf8')
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as EvalRow),
  );
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
