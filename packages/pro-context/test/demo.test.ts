import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { skipReason } from './helpers.js';

const demo = fileURLToPath(new URL('../../../scripts/demo.mjs', import.meta.url));
const run = async (...args: string[]) => {
  const { stdout, stderr } = await promisify(execFile)(process.execPath, [demo, ...args], {
    timeout: 60_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  return { stdout, stderr };
};

/**
 * `npm run demo` is the README's offline tour: the built CLI with no configuration file, the corpora served under
 * their real docs hosts through the loopback proxy, PyPI and npm faked. These run single demo commands the way
 * the README shows them.
 */
describe.skipIf(skipReason)(`npm run demo${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  it('answers get-docs for a curated library with no configuration file, at the version the fake PyPI lists', async () => {
    const { stdout, stderr } = await run('docs', 'fastapi', 'dependencies with yield', '--json');
    expect(stderr).toContain('no configuration file');
    const answer = JSON.parse(stdout) as { version: string; content: string; source: string };
    expect(answer.version).toBe('0.116.1');
    expect(answer.content).toMatch(/yield/);
    expect(answer.source).toMatch(/dependencies-with-yield/);
  });

  it("resolves a misspelt name and reads a page by its real docs URL (served through the demo's proxy)", async () => {
    const resolved = JSON.parse((await run('resolve', 'fastapy', '--json')).stdout) as {
      libraryId: string;
      availableVersions: string[];
    };
    expect(resolved.libraryId).toBe('fastapi');
    expect(resolved.availableVersions).toContain('0.110.0');
    const page = await run('read', 'https://docs.pydantic.dev/latest/migration/index.md', '--max-tokens', '800');
    expect(page.stdout).toMatch(/Pydantic V2/);
  });
});
