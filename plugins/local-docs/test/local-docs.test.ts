import { mkdirSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isProContextError, type LibraryDescriptor } from '@pro-context/kernel';
import { describeSourceAdapterContract } from '@pro-context/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { LocalDocsSourceAdapter } from '../src/adapter.js';
import { InstalledPackages } from '../src/installed.js';
import { customSourceLibrary, InstalledPackagesProvider } from '../src/provider.js';
import { localUrl } from '../src/urls.js';
import { cleanup, folder, INTERNAL_DOCS, TINY_PKG, write } from './fixtures.js';

const limits = { maxFiles: 100, maxFileBytes: 1_000_000 };
const adapterFor = (installed = new InstalledPackages()) =>
  new LocalDocsSourceAdapter({ limits, baseDir: process.cwd(), installed });
const lib = (id: string, localPath: string): LibraryDescriptor => ({ id, name: id, localPath });

async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (isProContextError(error)) return error.code;
    throw error;
  }
  throw new Error('expected a refusal');
}

afterAll(cleanup);

describeSourceAdapterContract('local-docs (a folder of markdown)', {
  create: () => adapterFor(),
  library: lib('acme-sdk', folder(INTERNAL_DOCS)),
  foreignLibrary: { id: 'elsewhere', name: 'Elsewhere', docsUrl: 'https://docs.example.com/' },
});

describe('a folder of markdown', () => {
  it('lists every markdown file (md, mdx, nested) with its title and folder as section, and nothing else', async () => {
    const dir = folder(INTERNAL_DOCS);
    const toc = await adapterFor().fetchToc(lib('acme-sdk', dir), 'latest');
    expect(toc.entries.map((e) => [e.title, e.section, e.url])).toEqual([
      ['Acme internal SDK', undefined, localUrl('lib', 'acme-sdk', 'README.md')],
      ['Retry policies', 'Guides', localUrl('lib', 'acme-sdk', 'guides/retries.md')],
      ['Tracing', 'Guides', localUrl('lib', 'acme-sdk', 'guides/deep/tracing.mdx')],
    ]);
    expect(toc.freshness.contentHash).toMatch(/^[0-9a-f]{32}$/);
  });

  it('serves pages through read-page URLs, and reports edits, new files and deletions as changed', async () => {
    const dir = folder(INTERNAL_DOCS);
    const adapter = adapterFor();
    const library = lib('acme-sdk', dir);
    const docs = await adapter.fetchDocs(library, 'latest');
    expect(docs.pages.find((p) => p.title === 'Retry policies')?.markdown).toContain('retry budgets');
    const page = await adapter.fetchPage(new URL(localUrl('lib', 'acme-sdk', 'guides/retries.md')));
    expect(page.markdown).toContain('RetryPolicy(maxAttempts=5');
    expect(await adapter.checkFreshness(library, 'latest', docs.freshness)).toBe('fresh');

    writeFileSync(join(dir, 'guides/retries.md'), '# Retry policies\n\nRetries now use **circuit breakers**.\n');
    // the same second and size as before must not hide an edit: the mtime is set apart explicitly
    utimesSync(join(dir, 'guides/retries.md'), new Date(), new Date(Date.now() + 5000));
    expect(await adapter.checkFreshness(library, 'latest', docs.freshness)).toBe('changed');
    const edited = await adapter.fetchDocs(library, 'latest');
    expect(edited.pages.find((p) => p.title === 'Retry policies')?.markdown).toContain('circuit breakers');

    write(dir, { 'guides/new.md': '# New page\n\ntext\n' });
    expect(await adapter.checkFreshness(library, 'latest', edited.freshness)).toBe('changed');
  });

  it('refuses paths out of the folder: .. segments, escaped slashes, symbolic links, with LOCAL_PATH_REFUSED', async () => {
    const outside = folder({ 'secret.md': '# Secret\n\nnot yours\n' });
    const dir = folder(INTERNAL_DOCS);
    symlinkSync(join(outside, 'secret.md'), join(dir, 'escape.md'));
    symlinkSync(outside, join(dir, 'escaped-folder'));
    const adapter = adapterFor();
    const library = lib('acme-sdk', dir);
    const docs = await adapter.fetchDocs(library, 'latest');
    expect(docs.pages.map((p) => p.title)).not.toContain('Secret');
    expect(docs.skipped?.map((s) => s.reason)).toEqual([
      'a symbolic link leading out of the folder (refused)',
      'a symbolic link leading out of the folder (refused)',
    ]);
    const base = localUrl('lib', 'acme-sdk');
    expect(await refusal(adapter.fetchPage(new URL(`${base}escape.md`)))).toBe('LOCAL_PATH_REFUSED');
    expect(await refusal(adapter.fetchPage(new URL(`${base}escaped-folder/secret.md`)))).toBe('LOCAL_PATH_REFUSED');
    expect(await refusal(adapter.fetchPage(new URL(`${base}..%2F..%2Fetc%2Fpasswd`)))).toBe('LOCAL_PATH_REFUSED');
    expect(await refusal(adapter.fetchPage(new URL(`${base}guides%2F..%2F..%2Fsecret.md`)))).toBe('LOCAL_PATH_REFUSED');
    // inside the folder but not a document of it
    expect(await refusal(adapter.fetchPage(new URL(`${base}notes.txt`)))).toBe('PAGE_NOT_FOUND');
  });

  it('a missing folder is LOCAL_PATH_MISSING', async () => {
    const code = await refusal(adapterFor().fetchDocs(lib('gone', '/nonexistent/pc-local-docs'), 'latest'));
    expect(code).toBe('LOCAL_PATH_MISSING');
  });
});

describe('a local llms.txt and a single markdown file', () => {
  it('an llms.txt: its local links are the pages, its remote links stay in the TOC, links out are refused', async () => {
    const dir = folder({
      'llms.txt':
        '# Acme\n\n> Internal docs.\n\n## Guides\n\n- [Start](start.md): first steps\n- [Upstream](https://docs.example.com/x.md)\n- [Out](../../etc/passwd.md)\n',
      'start.md': '# Start here\n\nInstall with `acme init`.\n',
    });
    const adapter = adapterFor();
    const library = lib('acme', join(dir, 'llms.txt'));
    const toc = await adapter.fetchToc(library, 'latest');
    expect(toc.title).toBe('Acme');
    expect(toc.summary).toBe('Internal docs.');
    expect(toc.entries.map((e) => [e.title, e.url])).toEqual([
      ['Start', localUrl('lib', 'acme', 'start.md')],
      ['Upstream', 'https://docs.example.com/x.md'],
    ]);
    const docs = await adapter.fetchDocs(library, 'latest');
    expect(docs.pages.map((p) => p.markdown)).toEqual(['# Start here\n\nInstall with `acme init`.\n']);
  });

  it('one markdown file: the TOC lists its sections', async () => {
    const dir = folder({
      'handbook.md': '# Handbook\n\n## On call\n\nPage the SRE.\n\n## Deploys\n\nFridays never.\n',
    });
    const toc = await adapterFor().fetchToc(lib('handbook', join(dir, 'handbook.md')), 'latest');
    const url = localUrl('lib', 'handbook', 'handbook.md');
    expect(toc.entries.map((e) => e.url)).toEqual([url, `${url}#on-call`, `${url}#deploys`]);
  });
});

describe('packages installed in the project', () => {
  const project = (extra: Record<string, string> = {}) =>
    folder({
      'package.json': JSON.stringify({ name: 'app', dependencies: { 'tiny-pkg': '^1.0.0' } }),
      ...Object.fromEntries(Object.entries(TINY_PKG).map(([p, t]) => [`node_modules/tiny-pkg/${p}`, t])),
      ...extra,
    });
  const detected: LibraryDescriptor[] = [
    {
      id: 'tiny-pkg',
      name: 'tiny-pkg',
      language: 'javascript',
      packages: { npm: 'tiny-pkg' },
      detectedFrom: 'package.json',
    },
    {
      id: 'acme-tool',
      name: 'acme-tool',
      language: 'python',
      packages: { pypi: 'Acme_Tool' },
      detectedFrom: 'uv.lock',
    },
    { id: 'absent', name: 'absent', language: 'javascript', packages: { npm: 'absent' }, detectedFrom: 'package.json' },
  ];

  it('npm: README, docs/ and the .d.ts API (with JSDoc, through re-exports), at the installed version only', async () => {
    const root = project();
    const installed = new InstalledPackages();
    const provider = new InstalledPackagesProvider(installed);
    let announced = 0;
    provider.watch(() => announced++);
    await provider.scan(detected, root);
    expect(announced).toBe(1);
    expect(provider.libraries()).toEqual([
      expect.objectContaining({
        id: 'tiny-pkg',
        installedVersion: '1.4.2',
        versions: ['1.4.2'],
        packages: { npm: 'tiny-pkg' },
      }),
    ]);
    const adapter = adapterFor(installed);
    const library = detected[0] as LibraryDescriptor;
    expect(adapter.canHandle(library)).toBe(true);
    expect(adapter.canHandle(detected[2] as LibraryDescriptor)).toBe(false);
    expect(await adapter.docVersions(library)).toEqual({ kind: 'list', versions: ['1.4.2'] });
    const toc = await adapter.fetchToc(library, '1.4.2');
    expect(toc.entries.map((e) => [e.title, e.section])).toEqual([
      ['tiny-pkg', 'Overview'],
      ['Advanced greetings', 'Guides'],
      ['tiny-pkg API reference', 'API reference'],
    ]);
    const docs = await adapter.fetchDocs(library, '1.4.2');
    const api = docs.pages.find((p) => p.url === localUrl('npm', 'tiny-pkg', 'index.d.ts'));
    expect(api?.title).toBe('tiny-pkg 1.4.2 API reference');
    expect(api?.markdown).toContain('declare function greet(name: string): string;');
    expect(api?.markdown).toContain('Greets someone by name.');
    expect(api?.markdown).toContain('- `name` — who to greet');
    expect(api?.markdown).toContain('### greetAll');
    expect(api?.markdown).toContain('#### Greeter.count');
    expect(api?.markdown).toContain('How many greetings so far.');
    expect(api?.markdown).toContain("type Salutation = 'hello' | 'hi';");
    expect(await refusal(adapter.fetchDocs(library, '2.0.0'))).toBe('SOURCE_UNAVAILABLE');
    // read-page of the API page renders it again
    const page = await adapter.fetchPage(new URL(localUrl('npm', 'tiny-pkg', 'index.d.ts')));
    expect(page.markdown).toContain('### GreetOptions');
  });

  it('npm: a node_modules link leading out of the project is not followed', async () => {
    const elsewhere = folder(Object.fromEntries(Object.entries(TINY_PKG)));
    const root = folder({ 'package.json': JSON.stringify({ dependencies: { 'tiny-pkg': '1' } }) });
    mkdirSync(join(root, 'node_modules'));
    symlinkSync(elsewhere, join(root, 'node_modules', 'tiny-pkg'));
    const installed = new InstalledPackages();
    await new InstalledPackagesProvider(installed).scan(detected, root);
    expect(installed.all()).toEqual([]);
  });

  it('python: the long description of the virtual environment METADATA, at its version', async () => {
    const metadata = [
      'Metadata-Version: 2.1',
      'Name: Acme_Tool',
      'Version: 0.3.1',
      'Summary: Tools for Acme.',
      'Description-Content-Type: text/x-rst',
      '',
      'Acme Tool',
      '=========',
      '',
      'Use ``acme.run()`` to run **pipelines**.',
      '',
      'Configuration',
      '-------------',
      '',
      'Set ACME_HOME.',
      '',
    ].join('\n');
    const root = project({
      '.venv/lib/python3.12/site-packages/acme_tool-0.3.1.dist-info/METADATA': metadata,
      '.venv/pyvenv.cfg': 'home = /usr\n',
    });
    const installed = new InstalledPackages();
    const provider = new InstalledPackagesProvider(installed);
    await provider.scan(detected, root);
    expect(provider.libraries().map((l) => [l.id, l.installedVersion])).toEqual([
      ['tiny-pkg', '1.4.2'],
      ['acme-tool', '0.3.1'],
    ]);
    const adapter = adapterFor(installed);
    const library = detected[1] as LibraryDescriptor;
    const docs = await adapter.fetchDocs(library, '0.3.1');
    expect(docs.pages).toHaveLength(1);
    expect(docs.pages[0]?.title).toBe('Acme Tool');
    expect(docs.pages[0]?.markdown).toContain('## Configuration');
    expect(docs.pages[0]?.markdown).toContain('to run **pipelines**');
    const toc = await adapter.fetchToc(library, '0.3.1');
    expect(toc.entries.map((e) => e.title)).toEqual(['Acme Tool', 'Configuration']);
  });

  it('project.pythonEnv names another environment', async () => {
    const root = folder({
      'envs/py/lib/python3.11/site-packages/acme_tool-0.4.0.dist-info/METADATA':
        'Metadata-Version: 2.1\nName: acme-tool\nVersion: 0.4.0\nDescription-Content-Type: text/markdown\n\n# Acme\n\nHello.\n',
    });
    const installed = new InstalledPackages();
    await new InstalledPackagesProvider(installed).scan(detected, root, { pythonEnv: 'envs/py' });
    expect(installed.get('pypi', 'acme_tool')?.version).toBe('0.4.0');
  });
});

describe('sources.custom', () => {
  it('url → the llms-txt bag, file → localPath (from the config folder), github → repository', () => {
    expect(
      customSourceLibrary(
        { name: 'internal-sdk', type: 'url', url: 'https://docs.acme.internal/sdk/llms.txt', libraryId: 'acme/sdk' },
        '/etc/pc',
      ),
    ).toEqual({
      id: 'acme/sdk',
      name: 'internal-sdk',
      sources: { llmsTxt: { llmsTxtUrl: 'https://docs.acme.internal/sdk/llms.txt' } },
    });
    expect(customSourceLibrary({ name: 'Local Docs', type: 'file', path: 'docs/llms.txt' }, '/etc/pc')).toEqual({
      id: 'local-docs',
      name: 'Local Docs',
      localPath: '/etc/pc/docs/llms.txt',
    });
    expect(
      customSourceLibrary({ name: 'tool', type: 'github', repo: 'acme/tool', docsPath: 'site' }, '/'),
    ).toMatchObject({
      repository: 'acme/tool',
      docsPath: 'site',
    });
  });
});
