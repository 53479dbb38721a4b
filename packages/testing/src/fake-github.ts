import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, relative, sep } from 'node:path';
import { gzipSync } from 'node:zlib';
import { pack } from 'tar-stream';

/** The files of one git ref: a folder on disk (the repository's root) and/or inline files (path → text). */
export interface FakeGithubContent {
  /** A folder served as the repository's root (every file below it, by its relative path). */
  dir?: string;
  /** Inline files by repository path; `null` removes a file of `dir` (or of the default branch). */
  files?: Record<string, string | null>;
}

/** A tag of a fake repository. */
export interface FakeGithubTag extends FakeGithubContent {
  name: string;
  /**
   * Whether `dir`/`files` are laid over the default branch's files (`true`) or are the tag's only files
   * (`false`, the default when the tag gives `dir` or `files`). A tag with neither serves the default branch.
   */
  extendsBranch?: boolean;
}

/** A repository the fake GitHub serves. */
export interface FakeGithubRepo extends FakeGithubContent {
  /** `owner/name`. */
  fullName: string;
  description?: string;
  homepage?: string;
  topics?: string[];
  /** Default `main`. */
  defaultBranch?: string;
  /** Tags, newest first (the order the API lists them in). */
  tags?: FakeGithubTag[];
}

/** One request the fake answered. */
export interface FakeGithubRequest {
  method: string;
  /** Path and query as requested (`/repos/o/r/git/trees/main?recursive=1`, `/raw/o/r/v1/docs/a.md`). */
  path: string;
  status: number;
  /** Whether an `Authorization` header came with it (its value is never recorded). */
  authorized: boolean;
  /** The `If-None-Match` sent, if any. */
  ifNoneMatch?: string;
}

/** A failure the fake plays for requests whose path contains `path` (all requests by default). */
export interface FakeGithubFault {
  path?: string;
  status: number;
  body?: string;
  /** Play it this many times, then answer normally (default: until cleared). */
  times?: number;
}

/** A loopback GitHub: the REST API (at `apiUrl`), raw content (at `rawUrl`) and codeload tarballs. */
export interface FakeGithub {
  /** `http://127.0.0.1:<port>`. */
  origin: string;
  /** What to configure as `sources.github.apiUrl`. */
  apiUrl: string;
  /** What to configure as `sources.github.rawUrl` (`{origin}/raw`). */
  rawUrl: string;
  /** Every request answered, in order (clear with `requests.length = 0`). */
  requests: FakeGithubRequest[];
  /** How many requests had a path containing `path` (all without it). */
  count(path?: string): number;
  /**
   * Sets the API rate limit: `remaining` requests before `403` with `x-ratelimit-remaining: 0` (every API
   * answer but a `304` counts); `reset` in epoch seconds (default an hour from now). Initially 5000.
   */
  setRateLimit(limit: { remaining: number; limit?: number; reset?: number }): void;
  /** Plays a failure from now on; `fault()` clears it. */
  fault(spec?: FakeGithubFault): void;
  /** Adds or replaces a repository while running. */
  setRepo(repo: FakeGithubRepo): void;
  close(): Promise<void>;
}

type Files = Map<string, Buffer>;

function walk(dir: string, out: Files): void {
  const visit = (folder: string) => {
    for (const name of readdirSync(folder).sort()) {
      const path = join(folder, name);
      const stat = statSync(path);
      if (stat.isDirectory()) visit(path);
      else if (stat.isFile()) out.set(relative(dir, path).split(sep).join('/'), readFileSync(path));
    }
  };
  if (existsSync(dir)) visit(dir);
}

function filesOf(content: FakeGithubContent, base?: Files): Files {
  const out: Files = new Map(base ?? []);
  if (content.dir) walk(content.dir, out);
  for (const [path, text] of Object.entries(content.files ?? {})) {
    if (text === null) out.delete(path);
    else out.set(path, Buffer.from(text, 'utf8'));
  }
  return out;
}

const sha1 = (data: string | Buffer) => createHash('sha1').update(data).digest('hex');
const blobSha = (body: Buffer) => sha1(Buffer.concat([Buffer.from(`blob ${body.length}\0`), body]));

interface TreeEntry {
  path: string;
  mode: string;
  type: 'blob' | 'tree';
  sha: string;
  size?: number;
}

/** The recursive tree of a set of files, with git-like shas (a folder's sha changes when anything below it does). */
function treeOf(files: Files): { sha: string; entries: TreeEntry[] } {
  const blobs = [...files.entries()].map(([path, body]) => ({ path, sha: blobSha(body), size: body.length }));
  const folders = new Map<string, string[]>();
  for (const blob of blobs) {
    const parts = blob.path.split('/');
    for (let i = 0; i < parts.length; i += 1) {
      const folder = parts.slice(0, i).join('/');
      const list = folders.get(folder) ?? [];
      list.push(`${blob.path}:${blob.sha}`);
      folders.set(folder, list);
    }
  }
  const entries: TreeEntry[] = [
    ...[...folders.entries()]
      .filter(([folder]) => folder !== '')
      .map(([folder, list]) => ({ path: folder, mode: '040000', type: 'tree' as const, sha: sha1(list.join('\n')) })),
    ...blobs.map((b) => ({ path: b.path, mode: '100644', type: 'blob' as const, sha: b.sha, size: b.size })),
  ].sort((a, b) => a.path.localeCompare(b.path));
  return { sha: sha1((folders.get('') ?? []).join('\n')), entries };
}

async function tarballOf(files: Files, prefix: string): Promise<Buffer> {
  const tar = pack();
  const chunks: Buffer[] = [];
  const done = new Promise<void>((resolve, reject) => {
    tar.on('data', (chunk: unknown) => chunks.push(chunk as Buffer));
    tar.on('end', () => resolve());
    tar.on('error', reject);
  });
  tar.entry({ name: `${prefix}/`, type: 'directory' });
  for (const [path, body] of [...files.entries()].sort(([a], [b]) => a.localeCompare(b))) {
    tar.entry({ name: `${prefix}/${path}`, size: body.length, mode: 0o644 }, body);
  }
  tar.finalize();
  await done;
  return gzipSync(Buffer.concat(chunks));
}

const NOT_FOUND = JSON.stringify({ message: 'Not Found', documentation_url: 'https://docs.github.com/rest' });

/**
 * Starts a loopback GitHub serving `repos` as the REST API and raw content do (shapes of
 * `reference/external-apis.md` §2.6):
 *
 * - `GET /repos/{o}/{r}` (metadata), `/repos/{o}/{r}/tags?per_page=&page=` (paginated, `Link: rel="next"`),
 *   `/repos/{o}/{r}/git/trees/{ref}?recursive=1`, `/repos/{o}/{r}/readme?ref=`, `/repos/{o}/{r}/contents/{path}?ref=`
 *   (a file, base64, or a folder listing), `/repos/{o}/{r}/tarball/{ref}` (`302` to `/codeload/…`, a gzipped tar
 *   whose entries sit under `{o}-{r}-{sha7}/`, as GitHub's do);
 * - `GET /raw/{o}/{r}/{ref}/{path}`: the file's bytes (not rate limited);
 * - `{ref}` is a branch, a tag or a commit sha the fake handed out; `404 {"message":"Not Found"}` otherwise;
 * - rate-limit headers on every API answer, `403` with `x-ratelimit-remaining: 0` when exhausted
 *   ({@link FakeGithub.setRateLimit}); an `ETag` on every JSON answer and `304` for a matching `If-None-Match`
 *   (which does not count against the limit).
 *
 * @example
 * const github = await startFakeGithub(corpusRepos(findCorpusRoot()!));
 * // sources.github: { apiUrl: github.apiUrl, rawUrl: github.rawUrl }
 * expect(github.count('/tarball/')).toBe(1);
 */
export async function startFakeGithub(repos: readonly FakeGithubRepo[]): Promise<FakeGithub> {
  const byName = new Map<string, FakeGithubRepo>();
  /** Files per `owner/name@ref`, computed on first use. */
  const contents = new Map<string, { files: Files; tree: ReturnType<typeof treeOf>; commit: string }>();
  const setRepo = (repo: FakeGithubRepo) => {
    byName.set(repo.fullName.toLowerCase(), repo);
    for (const key of [...contents.keys()]) if (key.startsWith(`${repo.fullName.toLowerCase()}@`)) contents.delete(key);
  };
  for (const repo of repos) setRepo(repo);

  const requests: FakeGithubRequest[] = [];
  let rate = { limit: 5000, remaining: 5000, reset: Math.floor(Date.now() / 1000) + 3600 };
  let fault: FakeGithubFault | undefined;
  let origin = '';

  const branchOf = (repo: FakeGithubRepo) => repo.defaultBranch ?? 'main';
  /** The content of `ref` (branch, tag or a commit sha handed out), or undefined. */
  const contentAt = (repo: FakeGithubRepo, ref: string) => {
    const key = repo.fullName.toLowerCase();
    const build = (name: string) => {
      const cached = contents.get(`${key}@${name}`);
      if (cached) return cached;
      let files: Files;
      if (name === branchOf(repo)) files = filesOf(repo);
      else {
        const tag = repo.tags?.find((t) => t.name === name) as FakeGithubTag;
        const own = tag.dir !== undefined || tag.files !== undefined;
        files = !own ? filesOf(repo) : filesOf(tag, tag.extendsBranch ? filesOf(repo) : undefined);
      }
      const tree = treeOf(files);
      const value = { files, tree, commit: sha1(`commit ${repo.fullName} ${name} ${tree.sha}`) };
      contents.set(`${key}@${name}`, value);
      return value;
    };
    const names = [branchOf(repo), ...(repo.tags ?? []).map((t) => t.name)];
    const direct = ref.replace(/^refs\/(heads|tags)\//, '');
    if (names.includes(direct)) return build(direct);
    for (const name of names) {
      const c = build(name);
      if (c.commit === ref || c.tree.sha === ref) return c;
    }
    return undefined;
  };

  type Answer = { status: number; body?: Buffer | string; headers?: Record<string, string>; api: boolean };
  const jsonAnswer = (value: unknown): Answer => ({
    status: 200,
    body: JSON.stringify(value),
    headers: { 'content-type': 'application/json; charset=utf-8' },
    api: true,
  });
  const notFound = (api = true): Answer => ({
    status: 404,
    body: api ? NOT_FOUND : '404: Not Found',
    headers: { 'content-type': api ? 'application/json; charset=utf-8' : 'text/plain; charset=utf-8' },
    api,
  });
  const fileObject = (repo: FakeGithubRepo, ref: string, path: string, body: Buffer) => ({
    type: 'file',
    encoding: 'base64',
    size: body.length,
    name: path.split('/').at(-1),
    path,
    content: body.toString('base64').replace(/.{60}/g, '$&\n'),
    sha: blobSha(body),
    url: `${origin}/repos/${repo.fullName}/contents/${path}?ref=${ref}`,
    html_url: `${origin}/${repo.fullName}/blob/${ref}/${path}`,
    download_url: `${origin}/raw/${repo.fullName}/${ref}/${path}`,
  });

  const route = async (path: string): Promise<Answer> => {
    const url = new URL(path, 'http://fake');
    const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    if (parts[0] === 'raw') {
      const repo = byName.get(`${parts[1]}/${parts[2]}`.toLowerCase());
      const content = repo && parts[3] ? contentAt(repo, parts[3]) : undefined;
      const body = content?.files.get(parts.slice(4).join('/'));
      if (!body) return notFound(false);
      return {
        status: 200,
        body,
        headers: { 'content-type': 'text/plain; charset=utf-8', etag: `"${blobSha(body)}"` },
        api: false,
      };
    }
    if (parts[0] === 'codeload') {
      const repo = byName.get(`${parts[1]}/${parts[2]}`.toLowerCase());
      const ref = parts.slice(4).join('/');
      const content = repo ? contentAt(repo, ref) : undefined;
      if (!repo || !content) return notFound(false);
      const prefix = `${repo.fullName.replace('/', '-')}-${content.commit.slice(0, 7)}`;
      return {
        status: 200,
        body: await tarballOf(content.files, prefix),
        headers: {
          'content-type': 'application/x-gzip',
          'content-disposition': `attachment; filename=${prefix}.tar.gz`,
        },
        api: false,
      };
    }
    if (parts[0] !== 'repos' || parts.length < 3) return notFound();
    const repo = byName.get(`${parts[1]}/${parts[2]}`.toLowerCase());
    if (!repo) return notFound();
    const rest = parts.slice(3);
    const ref = url.searchParams.get('ref') ?? branchOf(repo);
    if (rest.length === 0) {
      return jsonAnswer({
        id: Number.parseInt(sha1(repo.fullName).slice(0, 8), 16),
        name: repo.fullName.split('/')[1],
        full_name: repo.fullName,
        private: false,
        owner: { login: repo.fullName.split('/')[0], type: 'Organization' },
        html_url: `${origin}/${repo.fullName}`,
        description: repo.description ?? null,
        homepage: repo.homepage ?? null,
        topics: repo.topics ?? [],
        stargazers_count: 1234,
        archived: false,
        license: { key: 'mit', spdx_id: 'MIT', name: 'MIT License' },
        default_branch: branchOf(repo),
      });
    }
    if (rest[0] === 'tags' && rest.length === 1) {
      const perPage = Math.min(100, Number(url.searchParams.get('per_page') ?? 30) || 30);
      const page = Math.max(1, Number(url.searchParams.get('page') ?? 1) || 1);
      const tags = repo.tags ?? [];
      const slice = tags.slice((page - 1) * perPage, page * perPage).map((t) => ({
        name: t.name,
        commit: { sha: contentAt(repo, t.name)?.commit, url: `${origin}/repos/${repo.fullName}/commits/${t.name}` },
        tarball_url: `${origin}/repos/${repo.fullName}/tarball/refs/tags/${t.name}`,
      }));
      const answer = jsonAnswer(slice);
      if (page * perPage < tags.length) {
        answer.headers = {
          ...answer.headers,
          link: `<${origin}/repos/${repo.fullName}/tags?per_page=${perPage}&page=${page + 1}>; rel="next"`,
        };
      }
      return answer;
    }
    if (rest[0] === 'git' && rest[1] === 'trees' && rest.length >= 3) {
      const content = contentAt(repo, rest.slice(2).join('/'));
      if (!content) return notFound();
      const recursive = url.searchParams.has('recursive');
      const entries = recursive ? content.tree.entries : content.tree.entries.filter((e) => !e.path.includes('/'));
      return jsonAnswer({
        sha: content.tree.sha,
        url: `${origin}/repos/${repo.fullName}/git/trees/${content.tree.sha}`,
        tree: entries.map((e) => ({ ...e, url: `${origin}/repos/${repo.fullName}/git/${e.type}s/${e.sha}` })),
        truncated: false,
      });
    }
    if (rest[0] === 'tarball' && rest.length >= 2) {
      const target = rest.slice(1).join('/');
      if (!contentAt(repo, target)) return notFound();
      return {
        status: 302,
        headers: { location: `${origin}/codeload/${repo.fullName}/legacy.tar.gz/${target}` },
        api: true,
      };
    }
    if (rest[0] === 'readme' && rest.length === 1) {
      const content = contentAt(repo, ref);
      const name = content && [...content.files.keys()].find((p) => /^readme(\.(md|markdown|rst|txt))?$/i.test(p));
      if (!content || !name) return notFound();
      return jsonAnswer(fileObject(repo, ref, name, content.files.get(name) as Buffer));
    }
    if (rest[0] === 'contents') {
      const content = contentAt(repo, ref);
      if (!content) return notFound();
      const target = rest.slice(1).join('/');
      const file = content.files.get(target);
      if (file) return jsonAnswer(fileObject(repo, ref, target, file));
      const prefix = target ? `${target}/` : '';
      const children = content.tree.entries.filter(
        (e) => e.path.startsWith(prefix) && !e.path.slice(prefix.length).includes('/'),
      );
      if (children.length === 0) return notFound();
      return jsonAnswer(
        children.map((e) => ({
          name: e.path.split('/').at(-1),
          path: e.path,
          sha: e.sha,
          size: e.size ?? 0,
          type: e.type === 'tree' ? 'dir' : 'file',
          download_url: e.type === 'blob' ? `${origin}/raw/${repo.fullName}/${ref}/${e.path}` : null,
        })),
      );
    }
    return notFound();
  };

  const server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    const ifNoneMatch = req.headers['if-none-match'];
    const record = (status: number) =>
      requests.push({
        method: req.method ?? 'GET',
        path,
        status,
        authorized: req.headers.authorization !== undefined,
        ...(typeof ifNoneMatch === 'string' ? { ifNoneMatch } : {}),
      });
    void (async () => {
      const isApi = path.startsWith('/repos/');
      const rateHeaders = (): Record<string, string> => ({
        'x-ratelimit-limit': String(rate.limit),
        'x-ratelimit-remaining': String(rate.remaining),
        'x-ratelimit-reset': String(rate.reset),
        'x-ratelimit-used': String(rate.limit - rate.remaining),
        'x-ratelimit-resource': 'core',
      });
      const active = fault && (!fault.path || path.includes(fault.path)) ? fault : undefined;
      if (active) {
        if (active.times !== undefined && --active.times <= 0) fault = undefined;
        record(active.status);
        res
          .writeHead(active.status, { 'content-type': 'application/json', ...(isApi ? rateHeaders() : {}) })
          .end(active.body ?? JSON.stringify({ message: http.STATUS_CODES[active.status] ?? 'error' }));
        return;
      }
      if (isApi && rate.remaining <= 0) {
        record(403);
        res.writeHead(403, { 'content-type': 'application/json; charset=utf-8', ...rateHeaders() }).end(
          JSON.stringify({
            message:
              "API rate limit exceeded for 127.0.0.1. (But here's the good news: Authenticated requests get a higher rate limit. Check out the documentation for more details.)",
            documentation_url: 'https://docs.github.com/rest/overview/resources-in-the-rest-api#rate-limiting',
          }),
        );
        return;
      }
      const answer = await route(path);
      const body = answer.body === undefined ? Buffer.alloc(0) : Buffer.from(answer.body);
      const etag = answer.status === 200 && answer.api ? `W/"${sha1(body)}"` : answer.headers?.etag;
      if (etag && ifNoneMatch === etag) {
        record(304);
        res.writeHead(304, { etag, ...(isApi ? rateHeaders() : {}) }).end();
        return;
      }
      if (isApi) rate = { ...rate, remaining: rate.remaining - 1 };
      record(answer.status);
      res
        .writeHead(answer.status, {
          ...answer.headers,
          ...(etag ? { etag } : {}),
          ...(isApi ? rateHeaders() : {}),
        })
        .end(body);
    })().catch((error: unknown) => {
      record(500);
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    apiUrl: origin,
    rawUrl: `${origin}/raw`,
    requests,
    count: (path) => (path === undefined ? requests.length : requests.filter((r) => r.path.includes(path)).length),
    setRateLimit(limit) {
      rate = {
        limit: limit.limit ?? rate.limit,
        remaining: limit.remaining,
        reset: limit.reset ?? Math.floor(Date.now() / 1000) + 3600,
      };
    },
    fault(spec) {
      fault = spec ? { ...spec } : undefined;
    },
    setRepo,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Corpus folders of `../shared/corpora` laid out as the repositories they were copied from, each with two
 * tags whose docs differ, so a version is told from another by its content:
 *
 * - `fastapi/fastapi` (`docs/en/docs`): tag `0.116.1` = the corpus; tag `0.100.0` = the corpus with
 *   `docs/en/docs/index.md` replaced by a page naming 0.100.0 and `docs/en/docs/release-0-100.md` added;
 * - `pydantic/pydantic` (`docs/`): tag `v2.11.0` = the corpus; tag `v1.10.0` = three pages of v1 docs only;
 * - `encode/httpx` (`docs/`): tags `0.28.1` (the corpus) and `0.27.0` (`docs/index.md` naming 0.27.0 over it);
 * - `fastapi/typer` (`docs/`), `colinhacks/zod` (MDX in `packages/docs/content`, no root `docs/`).
 */
export function corpusRepos(corpusRoot: string): FakeGithubRepo[] {
  const dir = (name: string) => join(corpusRoot, name);
  return [
    {
      fullName: 'fastapi/fastapi',
      description: 'FastAPI framework, high performance, easy to learn, fast to code, ready for production',
      homepage: 'https://fastapi.tiangolo.com/',
      topics: ['python', 'api', 'web'],
      dir: dir('fastapi'),
      defaultBranch: 'master',
      tags: [
        { name: '0.116.1' },
        {
          name: '0.100.0',
          extendsBranch: true,
          files: {
            'docs/en/docs/index.md':
              '# FastAPI 0.100.0\n\nThese are the FastAPI 0.100.0 docs.\n\n## Pydantic v2 support\n\nFastAPI 0.100.0 is the first release supporting Pydantic v2 (release marker: fastapi-0-100-0).\n',
            'docs/en/docs/release-0-100.md':
              '# Release 0.100.0\n\nRelease notes of 0.100.0: the Pydantic v2 migration (release marker: fastapi-0-100-0).\n',
          },
        },
      ],
    },
    {
      fullName: 'pydantic/pydantic',
      description: 'Data validation using Python type hints',
      homepage: 'https://docs.pydantic.dev',
      dir: dir('pydantic'),
      tags: [
        { name: 'v2.11.0' },
        {
          name: 'v1.10.0',
          files: {
            'README.md': '# Pydantic\n\nData validation and settings management using Python type hints.\n',
            'docs/index.md':
              '# pydantic v1.10\n\nData validation and settings management using python type annotations (v1 marker: pydantic-v1-docs).\n',
            'docs/usage/validators.md':
              '# Validators\n\nCustom validation uses the `@validator` decorator (pydantic v1; `field_validator` does not exist yet).\n\n## Pre and per-item validators\n\n`@validator(..., pre=True)` runs before the standard validators; `each_item=True` validates list items.\n',
            'docs/usage/models.md':
              '# Models\n\nThe primary means of defining objects in pydantic v1 is via models inheriting from `BaseModel`.\n\n## Model config\n\nUse an inner `class Config` (v1 marker: pydantic-v1-docs).\n',
          },
        },
      ],
    },
    {
      fullName: 'encode/httpx',
      description: 'A next generation HTTP client for Python.',
      homepage: 'https://www.python-httpx.org/',
      dir: dir('httpx'),
      tags: [
        { name: '0.28.1' },
        {
          name: '0.27.0',
          extendsBranch: true,
          files: { 'docs/index.md': '# HTTPX 0.27.0\n\nHTTPX 0.27.0 docs (release marker: httpx-0-27-0).\n' },
        },
      ],
    },
    {
      fullName: 'fastapi/typer',
      description: 'Typer, build great CLIs.',
      dir: dir('typer'),
      tags: [{ name: '0.16.0' }],
    },
    {
      fullName: 'colinhacks/zod',
      description: 'TypeScript-first schema validation with static type inference',
      dir: dir('zod'),
      tags: [{ name: 'v4.1.0' }, { name: 'v3.25.76' }],
    },
  ];
}
