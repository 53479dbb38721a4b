// What a new user runs, and the environment of a user with Node and npm only, as the tests play them.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** `npx -y --allow-scripts=better-sqlite3 pro-context`, as the README writes it (the last item is the package). */
export const npxArgs = ['-y', '--allow-scripts=better-sqlite3', 'pro-context'] as const;

/**
 * A user's environment: an empty home, npm pointed at `registryUrl` (a user's is their own npm configuration;
 * the tests' is the loopback registry), and nothing else of this process's but PATH.
 *
 * This machine reaches no host but the npm registry, and a test sends no packet off the machine, so
 * better-sqlite3 is built the way the README's "no prebuilt binary" case says: prebuild-install's download is
 * skipped (`npm_config_build_from_source`) and node-gyp compiles against the headers installed with Node
 * (`npm_config_nodedir`) instead of downloading them.
 */
export function userEnv({ home, registryUrl }: { home: string; registryUrl: string }): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    npm_config_registry: registryUrl,
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
    npm_config_build_from_source: 'true',
  };
  const nodedir = nodeHeadersDir();
  if (nodedir) env.npm_config_nodedir = nodedir;
  return env;
}

/** The prefix of this Node installation when it carries its C headers (`include/node/node.h`). */
export function nodeHeadersDir(): string | undefined {
  const prefix = dirname(dirname(process.execPath));
  return existsSync(join(prefix, 'include', 'node', 'node.h')) ? prefix : undefined;
}
