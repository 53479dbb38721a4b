import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { ProContextError } from '@pro-context/kernel';
import { parse as parseIni } from 'ini';
import { npmMessages } from './messages.js';
import { NPM_URL_ENV, type NpmEnvironment } from './options.js';

/** The registries to ask, and where the default one came from. */
export interface NpmRegistrySettings {
  /** The default registry, ending in `/`. */
  registry: string;
  /** Registries of scopes (`@corp` → `https://npm.corp.example/`), each ending in `/`. */
  scopes: Record<string, string>;
  /** Where `registry` came from: `registries.npm.url`, `PRO_CONTEXT_NPM_URL`, `npm_config_registry`, a `.npmrc` path or `npm config get registry`. */
  source: string;
}

/** A registry URL ending in `/`, or `undefined` when `value` is not an http(s) URL. */
export function registryUrl(value: string | undefined): string | undefined {
  const trimmed = value?.trim().replace(/^["']|["']$/g, '');
  if (!trimmed) return undefined;
  try {
    const url = new URL(trimmed);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    return url.href.endsWith('/') ? url.href : `${url.href}/`;
  } catch {
    return undefined;
  }
}

/** An `npm_config_*` variable, case-insensitively, as npm reads them. */
function npmEnv(env: NpmEnvironment['env'], key: string): string | undefined {
  const wanted = `npm_config_${key}`.toLowerCase();
  for (const [name, value] of Object.entries(env)) if (name.toLowerCase() === wanted && value) return value;
  return undefined;
}

/** `${VAR}` (and `${VAR?}`, empty when unset) replaced from the environment, as npm does in `.npmrc` values. */
function withEnv(value: string, env: NpmEnvironment['env']): string | undefined {
  let missing = false;
  const replaced = value.replace(/\$\{([^${}?]+)(\?)?\}/g, (_match, name: string, optional?: string) => {
    const found = env[name];
    if (found === undefined && !optional) missing = true;
    return found ?? '';
  });
  return missing ? undefined : replaced;
}

/** The `registry=` and `@scope:registry=` lines of one `.npmrc`, or nothing when it is absent or unreadable. */
export function readNpmrc(
  file: string,
  env: NpmEnvironment['env'],
): { registry?: string; scopes: Record<string, string> } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return { scopes: {} };
  }
  const scopes: Record<string, string> = {};
  let registry: string | undefined;
  for (const [key, raw] of Object.entries(parseIni(text))) {
    if (typeof raw !== 'string') continue;
    const url = registryUrl(withEnv(raw, env));
    if (!url) continue;
    if (key === 'registry') registry = url;
    const scope = /^(@[^:/\s]+):registry$/.exec(key)?.[1];
    if (scope) scopes[scope.toLowerCase()] = url;
  }
  return { ...(registry ? { registry } : {}), scopes };
}

/** npm's project folder: the nearest folder up from `cwd` with a `package.json` or `node_modules`, else `cwd`. */
export function projectDirOf(cwd: string): string {
  let dir = resolve(cwd);
  for (;;) {
    if (existsSync(join(dir, 'package.json')) || existsSync(join(dir, 'node_modules'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return resolve(cwd);
    dir = parent;
  }
}

/** Runs `npm config get registry` with `env` in `cwd`, within `timeoutMs`. */
export function spawnNpmConfigGetRegistry(env: NpmEnvironment['env'], cwd: string, timeoutMs: number): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    execFile(
      process.platform === 'win32' ? 'npm.cmd' : 'npm',
      ['config', 'get', 'registry'],
      { cwd, env, timeout: timeoutMs, windowsHide: true, shell: process.platform === 'win32' },
      (error, stdout) => (error ? reject(error) : resolvePromise(String(stdout))),
    );
  });
}

/** `PRO_CONTEXT_NPM_URL` as a registry URL (`undefined` when unset); `CONFIG_INVALID` when it is not a URL. */
export function checkNpmUrlEnv(env: NpmEnvironment['env']): string | undefined {
  const value = env[NPM_URL_ENV]?.trim();
  if (!value) return undefined;
  const url = registryUrl(value);
  if (!url) {
    throw npmMessages.create('URL_ENV_INVALID', { value: value.slice(0, 200) }, { details: { variable: NPM_URL_ENV } });
  }
  return url;
}

/**
 * The npm registry the user's npm configuration names, without a registry host of our own: the `url` option,
 * `PRO_CONTEXT_NPM_URL`, `npm_config_registry`, the project's `.npmrc`, the user's `.npmrc`
 * (`npm_config_userconfig` or `~/.npmrc`), then `npm config get registry` (which also reads the global npmrc
 * and knows npm's own default). Scope registries (`@scope:registry=`) come from the environment and both
 * `.npmrc` files, unless `url` or `PRO_CONTEXT_NPM_URL` sets one registry for every package.
 */
export async function discoverNpmRegistry(
  environment: NpmEnvironment,
  options: { url?: string; npmConfigTimeoutMs?: number } = {},
): Promise<NpmRegistrySettings> {
  const { env } = environment;
  const fixed = registryUrl(options.url);
  if (fixed) return { registry: fixed, scopes: {}, source: 'registries.npm.url' };
  const fromOurEnv = checkNpmUrlEnv(env);
  if (fromOurEnv) return { registry: fromOurEnv, scopes: {}, source: NPM_URL_ENV };

  const projectFile = join(projectDirOf(environment.cwd), '.npmrc');
  const userFile = npmEnv(env, 'userconfig') ?? join(environment.home, '.npmrc');
  const project = readNpmrc(projectFile, env);
  const user = resolve(userFile) === resolve(projectFile) ? { scopes: {} } : readNpmrc(userFile, env);
  const envScopes: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    const scope = /^npm_config_(@[^:/\s]+):registry$/i.exec(name)?.[1];
    const url = scope ? registryUrl(value) : undefined;
    if (scope && url) envScopes[scope.toLowerCase()] = url;
  }
  const scopes = { ...user.scopes, ...project.scopes, ...envScopes };

  const fromNpmEnv = registryUrl(npmEnv(env, 'registry'));
  if (fromNpmEnv) return { registry: fromNpmEnv, scopes, source: 'npm_config_registry' };
  if (project.registry) return { registry: project.registry, scopes, source: projectFile };
  if (user.registry) return { registry: user.registry, scopes, source: userFile };

  const timeoutMs = options.npmConfigTimeoutMs ?? 5000;
  let output: string;
  try {
    output = await (environment.npmConfigGetRegistry
      ? environment.npmConfigGetRegistry(timeoutMs)
      : spawnNpmConfigGetRegistry(env, environment.cwd, timeoutMs));
  } catch (error) {
    throw noRegistry(
      `\`npm config get registry\` failed: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
      error,
    );
  }
  const lines = output
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean);
  const url = registryUrl(lines.at(-1));
  if (!url) throw noRegistry(`\`npm config get registry\` printed no registry URL ("${output.trim().slice(0, 100)}").`);
  return { registry: url, scopes, source: 'npm config get registry' };
}

function noRegistry(why: string, cause?: unknown): ProContextError {
  return npmMessages.create(
    'NO_REGISTRY',
    { why },
    { details: { registry: 'npm' }, ...(cause === undefined ? {} : { cause }) },
  );
}
