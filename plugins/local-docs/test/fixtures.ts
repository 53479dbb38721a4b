import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const made: string[] = [];

/** A temp folder with these files (path → content); removed by {@link cleanup}. */
export function folder(files: Record<string, string>, prefix = 'pc-local-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  write(dir, files);
  return dir;
}

/** Writes files under `dir`. */
export function write(dir: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
}

/** Removes every folder made. */
export function cleanup(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** A folder of internal markdown: a README, a guide with front matter, a nested .mdx, and files that are not docs. */
export const INTERNAL_DOCS = {
  'README.md': '# Acme internal SDK\n\nThe SDK every Acme service uses.\n\n## Install\n\nRun `acme install`.\n',
  'guides/retries.md':
    '---\ntitle: Retry policies\n---\n\nConfigure **retry budgets** with `RetryPolicy(maxAttempts=5, backoff="exponential")`.\n\n## Jitter\n\nJitter spreads retries.\n',
  'guides/deep/tracing.mdx': '# Tracing\n\nSpans are exported to the collector with `acme.trace()`.\n',
  'notes.txt': 'not documentation',
  '.hidden/secret.md': '# Hidden\n\nnever read\n',
};

/** A small npm package as installed: README, docs/, a `.d.ts` entry with JSDoc, re-exports. */
export const TINY_PKG = {
  'package.json': JSON.stringify({ name: 'tiny-pkg', version: '1.4.2', types: './index.d.ts', main: 'index.js' }),
  'README.md':
    '# tiny-pkg\n\nTiny helpers for greeting people.\n\n## Usage\n\n```js\nimport { greet } from "tiny-pkg";\n```\n',
  'docs/advanced.md': '# Advanced greetings\n\nUse `greetAll` with a **separator** option to join many names.\n',
  'index.js': "export function greet(name) { return 'hello ' + name; }\n",
  'index.d.ts': `/**
 * Greets someone by name.
 * @param name - who to greet
 * @returns the greeting
 * @example
 * greet('Ada') // 'hello Ada'
 */
export declare function greet(name: string): string;
/** Options of {@link greetAll}. */
export interface GreetOptions {
  /** Text put between two greetings (default ", "). */
  separator?: string;
}
export * from './more';
`,
  'more.d.ts': `/** Greets everyone, joined by the separator. */
export declare function greetAll(names: string[], options?: import('./index').GreetOptions): string;
/** A greeter that remembers how many times it greeted. */
export declare class Greeter {
  /** How many greetings so far. */
  count: number;
  /** Greets and counts. */
  greet(name: string): string;
}
export type Salutation = 'hello' | 'hi';
`,
};
