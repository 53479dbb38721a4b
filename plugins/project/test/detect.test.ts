import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  detectProject,
  findProjectRoot,
  normalizePypiName,
  ProjectLibraryProvider,
  toDescriptor,
} from '../src/index.js';

const dirs: string[] = [];
/** A project folder with these files (path → content). */
function project(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'pc-project-'));
  dirs.push(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** name → [version, detectedFrom] */
async function detected(dir: string) {
  const found = await detectProject(dir);
  return Object.fromEntries(found.map((d) => [`${d.ecosystem}:${d.name}`, [d.version, d.detectedFrom]]));
}

describe('detectProject', () => {
  it('reads a uv project: pyproject.toml names the dependencies (PEP 621, extras, PEP 735 groups), uv.lock installs them', async () => {
    const dir = project({
      'pyproject.toml': `[project]
name = "my-app"
dependencies = ["pydantic>=2", "FastAPI[standard] >=0.110 ; python_version >= '3.9'"]
[project.optional-dependencies]
cli = ["Typer_Slim"]
[dependency-groups]
dev = ["pytest>=8", { include-group = "lint" }]
lint = ["ruff"]
`,
      'uv.lock': `version = 1
requires-python = ">=3.12"

[[package]]
name = "my-app"
version = "0.1.0"
source = { editable = "." }

[[package]]
name = "pydantic"
version = "2.10.6"
source = { registry = "https://example.invalid/simple" }

[[package]]
name = "pydantic-core"
version = "2.27.2"
source = { registry = "https://example.invalid/simple" }

[[package]]
name = "fastapi"
version = "0.115.8"
source = { registry = "https://example.invalid/simple" }

[[package]]
name = "pytest"
version = "8.3.4"
source = { registry = "https://example.invalid/simple" }
`,
    });
    expect(await detected(dir)).toEqual({
      'pypi:pydantic': ['2.10.6', 'uv.lock'],
      'pypi:fastapi': ['0.115.8', 'uv.lock'],
      'pypi:typer-slim': [undefined, 'pyproject.toml'],
      'pypi:pytest': ['8.3.4', 'uv.lock'],
      'pypi:ruff': [undefined, 'pyproject.toml'],
    });
  });

  it('reads a pnpm workspace: every importer, versions without their peer suffix, workspace links skipped', async () => {
    const dir = project({
      'package.json': JSON.stringify({ name: 'root', private: true, devDependencies: { typescript: '^5.4.0' } }),
      'pnpm-workspace.yaml': 'packages:\n  - apps/*\n',
      'apps/web/package.json': JSON.stringify({
        name: 'web',
        dependencies: { zod: '^3.22.0', '@tanstack/react-query': '^5.0.0', shared: 'workspace:*' },
      }),
      'node_modules/zod/package.json': JSON.stringify({ name: 'zod', dependencies: { never: '1.0.0' } }),
      'pnpm-lock.yaml': `lockfileVersion: '9.0'
importers:
  .:
    devDependencies:
      typescript:
        specifier: ^5.4.0
        version: 5.4.5
  apps/web:
    dependencies:
      '@tanstack/react-query':
        specifier: ^5.0.0
        version: 5.62.0(react@18.3.1)
      shared:
        specifier: workspace:*
        version: link:../shared
      zod:
        specifier: ^3.22.0
        version: 3.22.4
packages:
  zod@3.22.4:
    resolution: {integrity: sha512-x}
`,
    });
    expect(await detected(dir)).toEqual({
      'npm:typescript': ['5.4.5', 'pnpm-lock.yaml'],
      'npm:zod': ['3.22.4', 'pnpm-lock.yaml'],
      'npm:@tanstack/react-query': ['5.62.0', 'pnpm-lock.yaml'],
    });
  });

  it('reads a Poetry project: [tool.poetry.dependencies] and groups, poetry.lock versions, python skipped', async () => {
    const dir = project({
      'pyproject.toml': `[tool.poetry]
name = "svc"
[tool.poetry.dependencies]
python = "^3.11"
Django = "^5.0"
local-lib = { path = "../lib" }
[tool.poetry.group.test.dependencies]
pytest-asyncio = "0.23.5"
`,
      'poetry.lock': `[[package]]
name = "django"
version = "5.0.2"
description = "web"
optional = false

[[package]]
name = "asgiref"
version = "3.7.2"
`,
    });
    expect(await detected(dir)).toEqual({
      'pypi:django': ['5.0.2', 'poetry.lock'],
      'pypi:pytest-asyncio': ['0.23.5', 'pyproject.toml'],
    });
  });

  it('reads requirements files with -r includes, extras, markers, options and URLs', async () => {
    const dir = project({
      'requirements.txt': `# app
-r requirements/base.txt
--index-url https://example.invalid/simple
requests[socks]==2.32.3 ; python_version >= "3.8"  # pinned
git+https://example.invalid/x.git#egg=x
-e ./local
`,
      'requirements/base.txt': 'Flask>=3\nsqlalchemy == 2.0.36 \\\n    --hash=sha256:abc\n-r ../requirements.txt\n',
    });
    expect(await detected(dir)).toEqual({
      'pypi:requests': ['2.32.3', 'requirements.txt'],
      'pypi:flask': [undefined, 'requirements/base.txt'],
      'pypi:sqlalchemy': ['2.0.36', 'requirements/base.txt'],
    });
  });

  it('reads package-lock.json v3: hoisted packages, direct ones from the root entry', async () => {
    const dir = project({
      'package-lock.json': JSON.stringify({
        name: 'app',
        lockfileVersion: 3,
        packages: {
          '': { name: 'app', dependencies: { react: '^18.2.0' }, devDependencies: { '@types/node': '^20' } },
          'node_modules/react': { version: '18.3.1' },
          'node_modules/@types/node': { version: '20.11.5' },
          'node_modules/loose-envify': { version: '1.4.0' },
          'node_modules/react/node_modules/loose-envify': { version: '1.3.0' },
        },
      }),
    });
    // no package.json: direct dependencies come from the lockfile's root entry
    expect(await detected(dir)).toEqual({
      'npm:react': ['18.3.1', 'package-lock.json'],
      'npm:@types/node': ['20.11.5', 'package-lock.json'],
    });
  });

  it('reads yarn.lock v1 and berry with a package.json naming the direct dependencies', async () => {
    const manifest = JSON.stringify({ name: 'app', dependencies: { lodash: '^4.17.0', '@scope/ui': '^1.0.0' } });
    const v1 = project({
      'package.json': manifest,
      'yarn.lock': `# THIS IS AN AUTOGENERATED FILE. DO NOT EDIT THIS FILE DIRECTLY.
# yarn lockfile v1


"@scope/ui@^1.0.0":
  version "1.4.2"
  resolved "https://example.invalid/@scope/ui/-/ui-1.4.2.tgz"

lodash@^4.17.0, lodash@^4.17.21:
  version "4.17.21"
  resolved "https://example.invalid/lodash/-/lodash-4.17.21.tgz"
`,
    });
    expect(await detected(v1)).toEqual({
      'npm:lodash': ['4.17.21', 'yarn.lock'],
      'npm:@scope/ui': ['1.4.2', 'yarn.lock'],
    });
    const berry = project({
      'package.json': manifest,
      'yarn.lock': `__metadata:
  version: 8
  cacheKey: 10c0

"@scope/ui@npm:^1.0.0":
  version: 1.5.0
  resolution: "@scope/ui@npm:1.5.0"

"app@workspace:.":
  version: 0.0.0-use.local
  resolution: "app@workspace:."

"lodash@npm:^4.17.0":
  version: 4.17.21
  resolution: "lodash@npm:4.17.21"
`,
    });
    expect(await detected(berry)).toEqual({
      'npm:lodash': ['4.17.21', 'yarn.lock'],
      'npm:@scope/ui': ['1.5.0', 'yarn.lock'],
    });
  });

  it('reads bun.lock (JSONC, trailing commas): hoisted packages, nested copies skipped', async () => {
    const dir = project({
      'bun.lock': `{
  "lockfileVersion": 1,
  "workspaces": {
    "": {
      "name": "app",
      "dependencies": { "hono": "^4.6.0", },
    },
  },
  "packages": {
    "hono": ["hono@4.6.14", "", {}, "sha512-x"],
    "undici-types": ["undici-types@6.19.8", "", {}, "sha512-y"],
    "hono/undici-types": ["undici-types@5.0.0", "", {}, "sha512-z"],
  },
}
`,
    });
    expect(await detected(dir)).toEqual({ 'npm:hono': ['4.6.14', 'bun.lock'] });
  });

  it('reads Pipfile and Pipfile.lock', async () => {
    const dir = project({
      Pipfile: '[packages]\nrequests = "*"\n[dev-packages]\nblack = "==24.1.0"\n',
      'Pipfile.lock': JSON.stringify({
        _meta: { hash: {} },
        default: { requests: { version: '==2.31.0' }, urllib3: { version: '==2.2.0' } },
        develop: { black: { version: '==24.1.1' } },
      }),
    });
    // the lockfile's version beats the manifest's pin: it is what is installed
    expect(await detected(dir)).toEqual({
      'pypi:requests': ['2.31.0', 'Pipfile.lock'],
      'pypi:black': ['24.1.1', 'Pipfile.lock'],
    });
    // a lockfile alone: every package it locks
    const alone = project({ 'Pipfile.lock': JSON.stringify({ default: { Requests: { version: '==2.31.0' } } }) });
    expect(await detected(alone)).toEqual({ 'pypi:requests': ['2.31.0', 'Pipfile.lock'] });
  });

  it('bounds the walk: no node_modules, .git or .venv, a depth cap, and unreadable files skipped', async () => {
    const dir = project({
      'package.json': JSON.stringify({ dependencies: { zod: '^3' } }),
      'node_modules/x/package.json': JSON.stringify({ dependencies: { hidden: '1' } }),
      '.venv/lib/requirements.txt': 'hidden-py\n',
      '.git/requirements.txt': 'hidden-git\n',
      'a/b/c/d/e/f/package.json': JSON.stringify({ dependencies: { deep: '1' } }),
      'broken/package.json': '{ not json',
    });
    const errors: string[] = [];
    const found = await detectProject(dir, { maxDepth: 4, onError: (file) => errors.push(file) });
    expect(found.map((d) => d.name)).toEqual(['zod']);
    expect(errors).toEqual([join(dir, 'broken', 'package.json')]);
    expect((await detectProject(dir, { maxDepth: 6 })).map((d) => d.name)).toEqual(['zod', 'deep']);
  });

  it('normalizes PyPI names (PEP 503) and keeps npm names as written', () => {
    expect(normalizePypiName('Typing_Extensions')).toBe('typing-extensions');
    expect(normalizePypiName('zope.interface')).toBe('zope-interface');
    expect(
      toDescriptor({ ecosystem: 'npm', name: '@TanStack/Query', version: '5.0.0', detectedFrom: 'bun.lock' }),
    ).toEqual({
      id: 'TanStack/Query',
      name: '@TanStack/Query',
      language: 'javascript',
      packages: { npm: '@TanStack/Query' },
      aliases: ['@TanStack/Query'],
      installedVersion: '5.0.0',
      detectedFrom: 'bun.lock',
    });
  });
});

describe('ProjectLibraryProvider', () => {
  it('is empty until its background scan ends, then tells its watchers; stop cancels', async () => {
    const dir = project({ 'requirements.txt': 'httpx==0.28.1\n' });
    const provider = new ProjectLibraryProvider();
    let changes = 0;
    provider.watch(() => changes++);
    provider.start(dir);
    expect(provider.libraries()).toEqual([]);
    await new Promise((r) => setTimeout(r, 200));
    expect(changes).toBe(1);
    expect(provider.libraries()).toMatchObject([
      { id: 'httpx', installedVersion: '0.28.1', detectedFrom: 'requirements.txt' },
    ]);
    await provider.stop();

    const cancelled = new ProjectLibraryProvider();
    cancelled.watch(() => changes++);
    cancelled.start(dir);
    await cancelled.stop();
    expect(cancelled.libraries()).toEqual([]);
    expect(changes).toBe(1);
  });
});

describe('the project root', () => {
  it('is the nearest folder from the start up with a project marker', async () => {
    const dir = project({ 'uv.lock': 'version = 1\n', 'src/app/deep/.keep': '' });
    expect(await findProjectRoot(join(dir, 'src', 'app', 'deep'), { home: '/nonexistent-home' })).toEqual({
      root: dir,
    });
    const git = project({ '.git/HEAD': 'ref: refs/heads/main\n', 'pkg/.keep': '' });
    expect((await findProjectRoot(join(git, 'pkg'), { home: '/nonexistent-home' })).root).toBe(git);
  });

  it('is never the home folder nor the file system root', async () => {
    const home = project({ 'package.json': '{}', 'Desktop/.keep': '' });
    const fromBelow = await findProjectRoot(join(home, 'Desktop'), { home });
    expect(fromBelow.root).toBeUndefined();
    expect(fromBelow.reason).toMatch(/the home folder itself is never scanned/);
    expect((await findProjectRoot(home, { home })).root).toBeUndefined();
    const fromRoot = await findProjectRoot('/', { home });
    expect(fromRoot.root).toBeUndefined();
    expect(fromRoot.reason).toMatch(/file system root itself is never scanned/);
  });

  it('the provider scans the root it walked up to, and says why it scanned nothing', async () => {
    const dir = project({ 'requirements.txt': 'httpx==0.28.1\n', 'src/.keep': '' });
    const provider = new ProjectLibraryProvider();
    provider.start(join(dir, 'src'), { home: '/nonexistent-home' });
    await provider.settled();
    expect(provider.root).toBe(dir);
    expect(provider.libraries()).toMatchObject([{ id: 'httpx', detectedFrom: 'requirements.txt' }]);
    const home = project({ 'requirements.txt': 'httpx==0.28.1\n', 'Desktop/.keep': '' });
    const none = new ProjectLibraryProvider();
    none.start(join(home, 'Desktop'), { home });
    await none.settled();
    expect(none.libraries()).toEqual([]);
    expect(none.notes.join(' ')).toMatch(/no project detected/);
  });

  it("several roots (a client's) are scanned together, detectedFrom relative to the first", async () => {
    const a = project({ 'requirements.txt': 'httpx==0.28.1\n' });
    const b = project({ 'requirements.txt': 'rich==13.9.4\n' });
    const provider = new ProjectLibraryProvider();
    provider.start({ roots: [a, b] });
    await provider.settled();
    expect(provider.libraries().map((l) => [l.id, l.detectedFrom])).toEqual([
      ['httpx', 'requirements.txt'],
      ['rich', `../${b.split('/').pop()}/requirements.txt`],
    ]);
  });
});

describe('bounds with a note', () => {
  it('stops at maxFiles, maxLibraries or its time budget, keeps what it found and says so once', async () => {
    const dir = project({
      'requirements.txt': 'httpx==0.28.1\nrich==13.9.4\n',
      'a/requirements.txt': 'click==8.1.7\n',
      'b/requirements.txt': 'anyio==4.6.0\n',
    });
    const notes: string[] = [];
    const found = await detectProject(dir, { maxFiles: 1, onLimit: (n) => notes.push(n) });
    expect(found.map((f) => f.name)).toEqual(['httpx', 'rich']);
    expect(notes).toEqual([expect.stringMatching(/stopped after 1 project files/)]);

    notes.length = 0;
    expect(await detectProject(dir, { maxLibraries: 2, onLimit: (n) => notes.push(n) })).toHaveLength(2);
    expect(notes).toEqual([expect.stringMatching(/stopped at 2 libraries/)]);

    notes.length = 0;
    expect(await detectProject(dir, { timeoutMs: -1, onLimit: (n) => notes.push(n) })).toEqual([]);
    expect(notes).toEqual([expect.stringMatching(/stopped after -1 ms/)]);

    notes.length = 0;
    expect(await detectProject(dir, { onLimit: (n) => notes.push(n) })).toHaveLength(4);
    expect(notes).toEqual([]);
  });
});
