// Starting pro-context the ways the tests need: a free loopback port, an HTTP server waited for until ready.

import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from './registry.js';

/** The built CLIs of the workspace (`npm test` builds them first). */
export const builtCli = join(repoRoot, 'packages', 'pro-context', 'dist', 'bin', 'pro-context.js');
export const builtAdmin = join(repoRoot, 'packages', 'pro-context', 'dist', 'bin', 'pro-context-admin.js');

/**
 * Spawns `command args` (a `pro-context serve --http`, directly or through npx) in its own process group and
 * waits for its ready line. `stop()` ends the group (npx runs the server as its child).
 */
export async function startHttpServer(
  command: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<{ process: ChildProcess; stderr: string[]; stop(): void }> {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stderr: string[] = [];
  child.stderr?.on('data', (d: Buffer) => stderr.push(d.toString()));
  const stop = () => {
    if (child.pid && child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        // already gone
      }
    }
  };
  const started = Date.now();
  while (!/pro-context HTTP server ready/.test(stderr.join(''))) {
    if (child.exitCode !== null || Date.now() - started > (options.timeoutMs ?? 60_000)) {
      stop();
      throw new Error(`the server did not start:\n${stderr.join('')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { process: child, stderr, stop };
}
