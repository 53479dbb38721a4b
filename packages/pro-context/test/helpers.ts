import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { type CallToolResult, CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { corpusSites, type FakeWeb, findCorpusRoot, startFakeWeb } from '@pro-context/testing/fake-web';
import { afterAll, beforeAll } from 'vitest';

/** The built (bundled) CLI the end-to-end tests spawn, as installed users run it (npm test builds it first). */
export const cliPath = fileURLToPath(new URL('../dist/bin/pro-context.js', import.meta.url));

export const corpusRoot = findCorpusRoot();
export const skipReason = !corpusRoot
  ? 'the corpora in ../shared/corpora are absent'
  : !existsSync(cliPath)
    ? 'packages/pro-context/dist/bin/pro-context.js is not built (run npm test, which builds first)'
    : undefined;

/** Starts the fake web on the real corpora. */
export async function startCorpusWeb(): Promise<FakeWeb> {
  return startFakeWeb({ sites: corpusSites(corpusRoot as string) });
}

/** A corpus project: the fake web and a project whose config names its libraries. */
export interface CorpusProject {
  readonly web: FakeWeb;
  readonly project: ReturnType<typeof writeProject>;
}

/**
 * Starts the fake web and writes a project before the enclosing `describe`'s tests, and removes both after
 * them. Read `web` and `project` inside tests (they exist once `beforeAll` has run).
 */
export function useCorpusProject(): CorpusProject {
  let web: FakeWeb | undefined;
  let project: ReturnType<typeof writeProject> | undefined;
  beforeAll(async () => {
    web = await startCorpusWeb();
    project = writeProject(web);
  });
  afterAll(async () => {
    project?.cleanup();
    await web?.close();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the corpus project starts in beforeAll: read it inside a test');
    return value;
  };
  return {
    get web() {
      return started(web);
    },
    get project() {
      return started(project);
    },
  };
}

/**
 * The curated registry and the PyPI/npm resolvers off: the corpus tests configure their libraries on the
 * fake web and never ask a package registry (no request leaves the machine, answers stay as pinned).
 */
export const offlineRegistries = {
  registry: { enabled: false },
  registries: { pypi: { enabled: false }, npm: { enabled: false } },
};

/** A temp folder with a config file naming libraries served by the fake web (registries off). */
export function writeProject(
  web: FakeWeb,
  extra: Record<string, unknown> = {},
): { dir: string; configFile: string; cacheDir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'pc-e2e-'));
  const cacheDir = join(dir, 'cache');
  const libraries = [
    {
      id: 'pydantic',
      name: 'Pydantic',
      language: 'python',
      description: 'Data validation using Python type hints',
      llmsTxtUrl: web.llmsTxtUrl('pydantic'),
      categories: ['data'],
    },
    { id: 'fastapi', name: 'FastAPI', language: 'python', llmsTxtUrl: web.llmsTxtUrl('fastapi'), categories: ['web'] },
    { id: 'httpx', name: 'HTTPX', language: 'python', llmsTxtUrl: web.llmsTxtUrl('httpx'), categories: ['web'] },
    { id: 'httpx-html', name: 'HTTPX (HTML site)', language: 'python', llmsTxtUrl: web.llmsTxtUrl('httpx-html') },
    // a library whose llms.txt URL the tests make serve garbage
    {
      id: 'broken-docs',
      name: 'Broken Docs',
      language: 'python',
      llmsTxtUrl: `${web.siteUrl('pydantic')}broken/llms.txt`,
    },
  ];
  const config = {
    security: { allowPrivateNetwork: true },
    http: { retryDelaysMs: [10, 20], timeoutMs: 10000 },
    cache: { directory: cacheDir },
    ...offlineRegistries,
    // the server runs in the repository: its own package.json and lockfile are not the tests' project
    project: { autoDetect: false },
    libraries,
    ...extra,
  };
  const configFile = join(dir, 'pro-context.config.yaml');
  // JSON is valid YAML
  writeFileSync(configFile, JSON.stringify(config, null, 2));
  return { dir, configFile, cacheDir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Spawns the real `pro-context` stdio server and connects the MCP SDK's client to it. */
export async function connectStdio(configFile: string, env: Record<string, string> = {}) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cliPath],
    env: { ...getDefaultEnvironment(), PRO_CONTEXT_CONFIG: configFile, ...env },
    stderr: 'pipe',
  });
  const stderr: string[] = [];
  transport.stderr?.on('data', (d: Buffer) => stderr.push(d.toString()));
  const client = new Client({ name: 'e2e', version: '0.0.1' }, { capabilities: {} });
  // a server that dies while starting says why: its stderr goes with the error
  await client.connect(transport).catch((error: unknown) => {
    throw new Error(`${error instanceof Error ? error.message : String(error)}\nserver stderr:\n${stderr.join('')}`);
  });
  return {
    client,
    stderr,
    /** The server process's id (to read its memory from /proc). */
    pid: transport.pid,
    async call(
      name: string,
      args: Record<string, unknown>,
      options: { onprogress?: (p: unknown) => void } = {},
    ): Promise<CallToolResult> {
      return (await client.callTool({ name, arguments: args }, CallToolResultSchema, {
        timeout: 60_000,
        ...options,
      })) as CallToolResult;
    },
    async close() {
      await client.close();
    },
  };
}

/** The catalog error in an isError result. */
export function errorOf(result: { isError?: boolean; content: unknown[] }): {
  code: string;
  message: string;
  suggestion: string;
  retryAfter?: number;
  recoverable: boolean;
} {
  if (!result.isError) throw new Error(`expected an error result, got ${JSON.stringify(result).slice(0, 300)}`);
  const text = (result.content[0] as { text: string }).text;
  return JSON.parse(text);
}
