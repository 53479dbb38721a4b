import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StartedKernel } from '@pro-context/kernel';
import { catalogErrorOf, type FakeRegistry, fakeNpmPackages, startFakeNpm } from '@pro-context/testing';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  discoverNpmRegistry,
  type NpmEnvironment,
  projectDirOf,
  readNpmrc,
  spawnNpmConfigGetRegistry,
} from '../src/index.js';
import { resolverWithEnvironment } from './helpers.js';

// Every test here builds its own environment: a temporary HOME and project, and an explicit env. Nothing
// reads the developer's npm configuration, and `npm config get registry` is a stub except in one test that
// runs the real npm against temporary config files only.

let root: string;
let home: string;
let project: string;
let nested: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'pro-context-npmrc-'));
  home = join(root, 'home');
  project = join(root, 'work', 'app');
  nested = join(project, 'src', 'deep');
  mkdirSync(home, { recursive: true });
  mkdirSync(nested, { recursive: true });
  writeFileSync(join(project, 'package.json'), '{"name":"app"}');
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

/** An environment in the temporary project (cwd deep inside it), with a stubbed `npm config get registry`. */
function environment(env: Record<string, string> = {}, npmOutput = 'http://127.0.0.1:7/from-npm/\n') {
  const calls: number[] = [];
  const value: NpmEnvironment = {
    env,
    cwd: nested,
    home,
    npmConfigGetRegistry: async (timeoutMs) => {
      calls.push(timeoutMs);
      return npmOutput;
    },
  };
  return { environment: value, calls };
}

describe('finding the registry', () => {
  it('asks, in order: url option, PRO_CONTEXT_NPM_URL, npm_config_registry, project .npmrc, ~/.npmrc, npm', async () => {
    writeFileSync(join(project, '.npmrc'), 'registry=http://127.0.0.1:4/project/\n');
    writeFileSync(join(home, '.npmrc'), 'registry = http://127.0.0.1:5/user/\n');
    const env = {
      PRO_CONTEXT_NPM_URL: 'http://127.0.0.1:2/ours',
      npm_config_registry: 'http://127.0.0.1:3/npm-env/',
    };
    const { environment: full, calls } = environment(env);
    const found = async (e: NpmEnvironment, url?: string) => {
      const settings = await discoverNpmRegistry(e, url ? { url } : {});
      return [settings.registry, settings.source];
    };
    expect(await found(full, 'http://127.0.0.1:1/option')).toEqual([
      'http://127.0.0.1:1/option/',
      'registries.npm.url',
    ]);
    expect(await found(full)).toEqual(['http://127.0.0.1:2/ours/', 'PRO_CONTEXT_NPM_URL']);
    const { PRO_CONTEXT_NPM_URL: _ours, ...npmEnvOnly } = env;
    expect(await found(environment(npmEnvOnly).environment)).toEqual([
      'http://127.0.0.1:3/npm-env/',
      'npm_config_registry',
    ]);
    expect(await found(environment({ NPM_CONFIG_REGISTRY: 'http://127.0.0.1:3/upper/' }).environment)).toEqual([
      'http://127.0.0.1:3/upper/',
      'npm_config_registry',
    ]);
    expect(await found(environment().environment)).toEqual(['http://127.0.0.1:4/project/', join(project, '.npmrc')]);
    rmSync(join(project, '.npmrc'));
    expect(await found(environment().environment)).toEqual(['http://127.0.0.1:5/user/', join(home, '.npmrc')]);
    rmSync(join(home, '.npmrc'));
    const last = environment();
    expect(await found(last.environment)).toEqual(['http://127.0.0.1:7/from-npm/', 'npm config get registry']);
    expect(last.calls).toEqual([5000]);
    expect(calls).toEqual([]);
  });

  it('reads npm_config_userconfig instead of ~/.npmrc, and substitutes environment variables as npm does', async () => {
    const custom = join(root, 'custom.npmrc');
    // biome-ignore lint/suspicious/noTemplateCurlyInString: an .npmrc placeholder, not a template literal
    writeFileSync(custom, '; a comment\nregistry=http://${REGISTRY_HOST}/npm/\n');
    writeFileSync(join(home, '.npmrc'), 'registry=http://127.0.0.1:5/user/\n');
    const { environment: e } = environment({ npm_config_userconfig: custom, REGISTRY_HOST: '127.0.0.1:6' });
    expect((await discoverNpmRegistry(e)).registry).toBe('http://127.0.0.1:6/npm/');
    // an unset variable makes the line unusable, as it makes npm fail; the next source is asked
    const { environment: unset, calls } = environment({ npm_config_userconfig: custom });
    expect((await discoverNpmRegistry(unset)).source).toBe('npm config get registry');
    expect(calls).toHaveLength(1);
  });

  it("finds the project's .npmrc in the nearest folder with a package.json, as npm does", () => {
    expect(projectDirOf(nested)).toBe(project);
    mkdirSync(join(project, 'packages', 'lib', 'node_modules'), { recursive: true });
    expect(projectDirOf(join(project, 'packages', 'lib'))).toBe(join(project, 'packages', 'lib'));
  });

  it('collects scope registries: environment over project over user', async () => {
    writeFileSync(
      join(home, '.npmrc'),
      ['@corp:registry=http://127.0.0.1:11/user-corp/', '@other:registry=http://127.0.0.1:12/user-other/'].join('\n'),
    );
    writeFileSync(
      join(project, '.npmrc'),
      '@corp:registry=http://127.0.0.1:13/project-corp\nregistry=http://127.0.0.1:4/\n',
    );
    const { environment: e } = environment({ 'npm_config_@env:registry': 'http://127.0.0.1:14/env/' });
    expect(await discoverNpmRegistry(e)).toEqual({
      registry: 'http://127.0.0.1:4/',
      scopes: {
        '@corp': 'http://127.0.0.1:13/project-corp/',
        '@other': 'http://127.0.0.1:12/user-other/',
        '@env': 'http://127.0.0.1:14/env/',
      },
      source: join(project, '.npmrc'),
    });
    // one registry set by pro-context's own setting serves every package
    expect((await discoverNpmRegistry(e, { url: 'http://127.0.0.1:1/' })).scopes).toEqual({});
  });

  it('ignores what is not a registry URL', () => {
    const file = join(root, 'odd.npmrc');
    writeFileSync(file, 'registry=not a url\n@x:registry=file:///etc/\nalways-auth=true\n');
    expect(readNpmrc(file, {})).toEqual({ scopes: {} });
    expect(readNpmrc(join(root, 'missing.npmrc'), {})).toEqual({ scopes: {} });
  });

  it('refuses a PRO_CONTEXT_NPM_URL that is not a URL, and reports npm failing as REGISTRY_UNREACHABLE', async () => {
    const bad = await catalogErrorOf(discoverNpmRegistry(environment({ PRO_CONTEXT_NPM_URL: 'nope' }).environment));
    expect([bad.code, bad.message]).toEqual(['CONFIG_INVALID', expect.stringContaining('PRO_CONTEXT_NPM_URL')]);
    const failing: NpmEnvironment = {
      env: {},
      cwd: nested,
      home,
      npmConfigGetRegistry: () => Promise.reject(new Error('spawn npm ENOENT')),
    };
    const missing = await catalogErrorOf(discoverNpmRegistry(failing));
    expect([missing.code, missing.message, missing.suggestion]).toEqual([
      'REGISTRY_UNREACHABLE',
      'Could not find the npm registry to ask: `npm config get registry` failed: spawn npm ENOENT',
      expect.stringContaining('PRO_CONTEXT_NPM_URL'),
    ]);
    const empty = await catalogErrorOf(discoverNpmRegistry(environment({}, 'undefined\n').environment));
    expect(empty.message).toContain('printed no registry URL');
  });

  it('runs the real `npm config get registry`, reading only the config files it is pointed at', async () => {
    const userconfig = join(home, 'isolated.npmrc');
    writeFileSync(userconfig, 'registry=http://127.0.0.1:4873/\n');
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: home,
      npm_config_userconfig: userconfig,
      npm_config_globalconfig: join(home, 'global.npmrc'),
      npm_config_update_notifier: 'false',
    };
    const output = await spawnNpmConfigGetRegistry(env, home, 20_000);
    expect(output.trim()).toBe('http://127.0.0.1:4873/');
  });
});

describe('the resolver with a discovered registry', () => {
  let fake: FakeRegistry;
  let corp: FakeRegistry;
  const kernels: StartedKernel[] = [];
  beforeAll(async () => {
    fake = await startFakeNpm(fakeNpmPackages);
    corp = await startFakeNpm([
      {
        name: '@corp/widgets',
        description: 'Internal widgets',
        versions: [{ version: '1.0.0', publishedAt: '2025-01-01T00:00:00Z' }],
      },
    ]);
  });
  afterAll(async () => {
    await Promise.all(kernels.map((k) => k.stop()));
    await Promise.all([fake.close(), corp.close()]);
  });

  it('finds the registry once, on first use, and sends scoped packages to their scope registry', async () => {
    writeFileSync(join(home, '.npmrc'), `@corp:registry=${corp.url}\n`);
    const { environment: e, calls } = environment({}, `${fake.url}\n`);
    const { kernel, resolver } = await resolverWithEnvironment(e);
    kernels.push(kernel);
    expect(calls).toEqual([]);
    expect((await resolver.resolveVersion('react', '^18')).version).toBe('18.3.1');
    expect((await resolver.lookup('@corp/widgets'))?.summary).toBe('Internal widgets');
    expect(await resolver.lookup('@corp/react')).toBeNull();
    expect(calls).toHaveLength(1);
    expect(fake.requests.map((r) => r.path)).toEqual(['/react']);
    expect(corp.requests.map((r) => r.path)).toEqual(['/@corp%2fwidgets', '/@corp%2freact']);
  });
});
