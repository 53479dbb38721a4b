import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { cliPath } from './helpers.js';

const run = promisify(execFile);

/**
 * `pro-context config check` on the reranking model's section (openai-embeddings), through the built CLI as a
 * person runs it: what the configuration alone shows to be wrong, worded as the server says it.
 */
describe('config check on the embeddings section', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pc-embeddings-check-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Writes `config` as a file and runs `config check` on it; never throws, returns what the person sees. */
  async function check(config: Record<string, unknown>, env: Record<string, string> = {}) {
    const file = join(dir, `${Math.random().toString(36).slice(2)}.yaml`);
    writeFileSync(file, JSON.stringify({ cache: { directory: join(dir, 'cache') }, ...config }));
    try {
      const { stdout, stderr } = await run(process.execPath, [cliPath, '-c', file, 'config', 'check'], {
        env: { PATH: process.env.PATH ?? '', HOME: dir, ...env },
        timeout: 60_000,
      });
      return { code: 0, stdout, stderr, file };
    } catch (error) {
      const e = error as { code?: number; stdout?: string; stderr?: string };
      return { code: e.code ?? -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '', file };
    }
  }

  it('accepts enabled: false without baseUrl or model (the section kept, binding nothing)', async () => {
    const result = await check({ embeddings: { enabled: false } });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^configuration OK/);
    expect(result.stdout).not.toContain('warning');
  });

  it('names PRO_CONTEXT_EMBEDDINGS_MODEL and says "required" when only PRO_CONTEXT_EMBEDDINGS_URL set the section', async () => {
    const result = await check({}, { PRO_CONTEXT_EMBEDDINGS_URL: 'https://models.example.test/v1' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error CONFIG_INVALID: Invalid configuration:\n/);
    expect(result.stderr).toMatch(/embeddings\.model: required: .*Set PRO_CONTEXT_EMBEDDINGS_MODEL/);
    // the file holds nothing wrong: not named
    expect(result.stderr).not.toContain(result.file);
    expect(result.stderr).not.toContain('expected string, received undefined');
    expect(result.stdout).toBe('');
  });

  it('words the other mistakes of the section for a person, not as zod does', async () => {
    const result = await check({ embeddings: { baseUrl: 'ftp://models.example.test', model: '  ', apiKey: '' } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`Invalid configuration in ${result.file}`);
    expect(result.stderr).toMatch(/embeddings\.baseUrl \(line \d+\): expected an http:\/\/ or https:\/\/ URL/);
    expect(result.stderr).toMatch(/embeddings\.model \(line \d+\): must not be blank/);
    expect(result.stderr).toMatch(/embeddings\.apiKey \(line \d+\): must not be empty/);
    expect(result.stderr).not.toMatch(/Too small|Invalid URL|expected string/);
  });

  it('warns of a baseUrl with credentials, a private one without permission, a timeoutMs past the cap', async () => {
    const credentials = await check({
      embeddings: { baseUrl: 'https://user:hunter2@models.example.test/v1', model: 'm' },
    });
    expect(credentials.code).toBe(0);
    expect(credentials.stdout).toContain(
      'warning: EMBEDDINGS_URL_CREDENTIALS: embeddings.baseUrl holds a user name or password (user:pass@ before the host), which pro-context never sends',
    );
    expect(credentials.stdout).not.toContain('allowPrivateNetwork');
    expect(credentials.stdout + credentials.stderr).not.toContain('hunter2');

    const local = await check({
      embeddings: { baseUrl: 'http://localhost:11434/v1', model: 'nomic-embed-text', timeoutMs: 60_000 },
      engine: { interactiveTimeoutMs: 10_000 },
    });
    expect(local.code).toBe(0);
    expect(local.stdout).toContain(
      'warning: EMBEDDINGS_NOT_ALLOWED: the embeddings server is on this machine or a private network, which the network guard refuses. A server on this machine or a private network (Ollama, vLLM, LM Studio) needs security.allowPrivateNetwork in the configuration: a list with its host ([localhost], [gpu.corp.example]) or true.',
    );
    expect(local.stdout).toContain(
      'warning: embeddings.timeoutMs (60000 ms) is past engine.interactiveTimeoutMs (10000 ms), how long a tool call waits: get-docs waits for the model 9750 ms at most.',
    );

    const fine = await check({
      embeddings: { baseUrl: 'http://localhost:11434/v1', model: 'nomic-embed-text' },
      security: { allowPrivateNetwork: true },
    });
    expect(fine.code).toBe(0);
    expect(fine.stdout).not.toContain('warning');
  });

  it('suggests openai-embeddings for a misspelt plugin name', async () => {
    const result = await check({ plugins: ['openai-embedings'] });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("(did you mean 'openai-embeddings'?)");
  });
});
