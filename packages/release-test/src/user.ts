// What a new user runs, and the environment of a user with Node and npm only, as the tests play them.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { type LoopbackSite, startLoopbackSite } from '@pro-context/testing';
import { repoRoot, tgz } from './registry.js';

/** `npx -y --allow-scripts=better-sqlite3 pro-context`, as the README writes it (the last item is the package). */
export const npxArgs = ['-y', '--allow-scripts=better-sqlite3', 'pro-context'] as const;

/**
 * How better-sqlite3 gets its binding in the tests. A user's install downloads a prebuilt binary (its install
 * script runs `prebuild-install`, which fetches it from the project's GitHub releases) and compiles only when
 * none matches. The tests send no packet off the machine, so either:
 * - `prebuilt` (default): the download is served on loopback (`npm_config_better_sqlite3_binary_host`, the
 *   mirror setting prebuild-install reads), with the binary this checkout's install compiled, packed the way
 *   prebuild publishes it (`build/Release/better_sqlite3.node`): the user's path, no compiler used;
 * - `compile` (PRO_CONTEXT_RELEASE_TEST_COMPILE=1): no download (`npm_config_build_from_source`), node-gyp
 *   compiles with the headers installed beside Node (`npm_config_nodedir`) instead of downloading them: the
 *   path of a machine where no prebuilt binary can be fetched.
 */
export type SqliteBinding = 'prebuilt' | 'compile';

export function sqliteBindingMode(): SqliteBinding {
  return process.env.PRO_CONTEXT_RELEASE_TEST_COMPILE === '1' ? 'compile' : 'prebuilt';
}

/** The better-sqlite3 the workspace installed (its version and its compiled binding). */
function workspaceBetterSqlite(): { version: string; binding: string } {
  const dir = join(repoRoot, 'packages', 'pro-context', 'node_modules', 'better-sqlite3');
  const version = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version as string;
  return { version, binding: join(dir, 'build', 'Release', 'better_sqlite3.node') };
}

/** Serves better-sqlite3's prebuilt binary for this Node, at the path prebuild-install asks a mirror for. */
export async function startPrebuiltHost(): Promise<LoopbackSite> {
  const { version, binding } = workspaceBetterSqlite();
  const file = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  const body = await tgz([
    ['build/Release/better_sqlite3.node', { body: readFileSync(binding), mode: statSync(binding).mode }],
  ]);
  return startLoopbackSite((path, res) => {
    if (path === `/v${version}/${file}`) res.writeHead(200, { 'content-type': 'application/gzip' }).end(body);
    else res.writeHead(404).end('Not Found');
  });
}

/**
 * A user's environment: an empty home, npm pointed at `registryUrl` (a user's is their own npm configuration;
 * the tests' is the loopback registry), better-sqlite3's binding as {@link SqliteBinding} says, and nothing else
 * of this process's but PATH (less the checkout's folders).
 */
export function userEnv({
  home,
  registryUrl,
  prebuiltHost,
}: {
  home: string;
  registryUrl: string;
  /** the origin of {@link startPrebuiltHost}; without it better-sqlite3 compiles */
  prebuiltHost?: string;
}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    // the machine's PATH without the checkout's tool folders (.tools/, node_modules/.bin): node and npm only
    PATH: (process.env.PATH ?? '')
      .split(delimiter)
      .filter((dir) => !dir.startsWith(repoRoot))
      .join(delimiter),
    HOME: home,
    npm_config_registry: registryUrl,
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
  };
  if (prebuiltHost) {
    env.npm_config_better_sqlite3_binary_host = prebuiltHost;
  } else {
    env.npm_config_build_from_source = 'true';
    const nodedir = nodeHeadersDir();
    if (nodedir) env.npm_config_nodedir = nodedir;
  }
  return env;
}

/** The prefix of this Node installation when it carries its C headers (`include/node/node.h`). */
export function nodeHeadersDir(): string | undefined {
  const prefix = dirname(dirname(process.execPath));
  return existsSync(join(prefix, 'include', 'node', 'node.h')) ? prefix : undefined;
}
