import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A code example of a fake Context7 library (the `codeSnippets` of `GET /v2/context?type=json`). */
export interface FakeContext7CodeSnippet {
  title: string;
  description: string;
  language: string;
  code: string;
  /** Page the snippet comes from (its `pageTitle`). */
  pageTitle: string;
  /** Source URL (its `codeId`, without the `#_snippet_n` the fake appends). */
  source: string;
}

/** A piece of prose of a fake Context7 library (the `infoSnippets` of `GET /v2/context?type=json`). */
export interface FakeContext7InfoSnippet {
  breadcrumb: string;
  content: string;
  /** Source URL (its `pageId`). */
  source: string;
}

/** A library the fake Context7 hosts. */
export interface FakeContext7Library {
  /** `/org/project`. */
  id: string;
  title: string;
  description: string;
  /** Tags a `libraryId` may name (`/org/project/v1.2.3`); any other is `404 tag_not_found`. */
  versions?: string[];
  stars?: number;
  trustScore?: number;
  codeSnippets: FakeContext7CodeSnippet[];
  infoSnippets: FakeContext7InfoSnippet[];
}

/** One request the fake answered. */
export interface FakeContext7Request {
  /** `/api/v2/libs/search`, `/api/v2/context`. */
  path: string;
  query: Record<string, string>;
  /** The `Authorization` header as sent (tests check the key travels only there). */
  authorization?: string;
  status: number;
}

/** A failure the fake plays for the requests whose path contains `path` (every request without it). */
export interface FakeContext7Fault {
  path?: string;
  status?: number;
  /** JSON error body; default the real shape for the status (`rate_limit_exceeded`, …). */
  body?: Record<string, unknown>;
  /** `Retry-After` seconds (429, 503). */
  retryAfter?: number;
  /** Wait this long before answering (a slow upstream). */
  delayMs?: number;
  /** Play it for this many requests, then answer normally (default: until cleared). */
  times?: number;
}

/** Options of {@link startFakeContext7}. */
export interface FakeContext7Options {
  /** Libraries hosted (default {@link fakeContext7Libraries}). */
  libraries?: FakeContext7Library[];
  /** The key `Authorization: Bearer …` must carry; any other (or none) is `401 invalid_api_key`. */
  apiKey?: string;
}

/** A loopback Context7 speaking its current REST API under `/api`. */
export interface FakeContext7 {
  origin: string;
  /** The base URL to configure (`{origin}/api`; requests go to `{url}/v2/…`). */
  url: string;
  requests: FakeContext7Request[];
  /** How many requests had a path containing `path` (all without it). */
  count(path?: string): number;
  /** Plays a failure from now on; `fault()` clears it. */
  fault(spec?: FakeContext7Fault): void;
  close(): Promise<void>;
}

const STATUS_ERRORS: Record<number, { error: string; message: string }> = {
  400: { error: 'bad_request', message: 'Invalid request parameters.' },
  401: { error: 'invalid_api_key', message: "Invalid API key. API keys should start with 'ctx7sk' prefix." },
  402: { error: 'spending_limit_exceeded', message: 'Spending limit exceeded for this teamspace.' },
  403: { error: 'forbidden', message: 'Access to this library is restricted by your teamspace policy.' },
  404: { error: 'library_not_found', message: 'Library not found.' },
  429: { error: 'rate_limit_exceeded', message: 'Rate limit exceeded. Please try again later.' },
  500: { error: 'internal_server_error', message: 'Internal server error.' },
  503: { error: 'service_unavailable', message: 'Service temporarily unavailable.' },
};

const terms = (text: string) =>
  new Set(
    text
      .toLowerCase()
      .split(/[^a-z0-9.]+/)
      .filter((t) => t.length > 1),
  );

function score(haystack: string, query: Set<string>): number {
  const words = terms(haystack);
  let n = 0;
  for (const term of query) if (words.has(term)) n++;
  return n;
}

/** Snippets matching the query best first; every snippet when none matches (Context7 always answers something). */
function ranked<T>(items: T[], text: (item: T) => string, query: string): T[] {
  const q = terms(query);
  const scored = items.map((item, i) => ({ item, i, s: score(text(item), q) }));
  const hits = scored.filter((x) => x.s > 0);
  const chosen = hits.length > 0 ? hits : scored;
  return chosen.sort((a, b) => b.s - a.s || a.i - b.i).map((x) => x.item);
}

/**
 * Starts a loopback Context7: `GET /api/v2/libs/search?libraryName&query` and `GET /api/v2/context?libraryId&
 * query&type=txt|json` with the real success shapes, `{error, message}` bodies for every failure (401
 * `invalid_api_key`, 404 `library_not_found` / `tag_not_found`, 400 for a missing parameter), and faults: any
 * status with its real body (429 with `Retry-After`, 5xx), slow answers.
 */
export async function startFakeContext7(options: FakeContext7Options = {}): Promise<FakeContext7> {
  const libraries = options.libraries ?? fakeContext7Libraries;
  const requests: FakeContext7Request[] = [];
  let fault: FakeContext7Fault | undefined;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const query = Object.fromEntries(url.searchParams);
    const authorization = req.headers.authorization;
    const active = fault && (!fault.path || url.pathname.includes(fault.path)) ? fault : undefined;
    if (active?.times !== undefined && --active.times <= 0) fault = undefined;
    const send = (status: number, body: string, headers: Record<string, string>) => {
      requests.push({ path: url.pathname, query, ...(authorization ? { authorization } : {}), status });
      if (!res.destroyed) res.writeHead(status, headers).end(body);
    };
    const error = (status: number, body?: Record<string, unknown>, extra: Record<string, string> = {}) =>
      send(status, JSON.stringify(body ?? STATUS_ERRORS[status] ?? { error: 'error', message: 'Error.' }), {
        'content-type': 'application/json',
        ...extra,
      });
    const answer = () => {
      if (active?.status !== undefined) {
        const retry: Record<string, string> =
          active.retryAfter === undefined ? {} : { 'retry-after': String(active.retryAfter) };
        const limits: Record<string, string> =
          active.status === 429
            ? {
                'ratelimit-limit': '60',
                'ratelimit-remaining': '0',
                'ratelimit-reset': String(Math.floor(Date.now() / 1000) + (active.retryAfter ?? 60)),
              }
            : {};
        return error(active.status, active.body, { ...retry, ...limits });
      }
      if (options.apiKey !== undefined && authorization !== `Bearer ${options.apiKey}`) return error(401);
      if (url.pathname === '/api/v2/libs/search') {
        const name = query.libraryName ?? '';
        if (!name || !query.query)
          return error(400, { error: 'bad_request', message: 'libraryName and query are required.' });
        const wanted = name.toLowerCase().replace(/^\/+/, '');
        const results = libraries
          .filter((l) => l.title.toLowerCase().includes(wanted) || l.id.toLowerCase().includes(wanted))
          .map((l) => ({
            id: l.id,
            title: l.title,
            description: l.description,
            branch: 'main',
            lastUpdateDate: '2026-10-01T10:30:00.000Z',
            state: 'finalized',
            totalTokens: [...l.codeSnippets, ...l.infoSnippets].reduce(
              (n, s) => n + Math.ceil(JSON.stringify(s).length / 4),
              0,
            ),
            totalSnippets: l.codeSnippets.length + l.infoSnippets.length,
            stars: l.stars ?? 1000,
            trustScore: l.trustScore ?? 8,
            benchmarkScore: 90,
            versions: l.versions ?? [],
          }));
        return send(200, JSON.stringify({ results, searchFilterApplied: false }), {
          'content-type': 'application/json',
        });
      }
      if (url.pathname === '/api/v2/context') {
        const id = query.libraryId ?? '';
        if (!/^\/[^/]+\/[^/]+([/@][^/]+)?$/.test(id) || !query.query) {
          return error(400, { error: 'bad_request', message: 'libraryId (/owner/repo) and query are required.' });
        }
        const [, owner, repo, tag] = /^\/([^/]+)\/([^/@]+)(?:[/@]([^/]+))?$/.exec(id) ?? [];
        const library = libraries.find((l) => l.id === `/${owner}/${repo}`);
        if (!library) return error(404, { error: 'library_not_found', message: `Library ${id} not found.` });
        if (tag && !(library.versions ?? []).includes(tag)) {
          return error(404, {
            error: 'tag_not_found',
            message: `Tag "${tag}" not found for library /${owner}/${repo}. Available tags: ${(library.versions ?? []).join(', ') || 'none'}`,
          });
        }
        const code = ranked(library.codeSnippets, (s) => `${s.title} ${s.description} ${s.code}`, query.query);
        const info = ranked(library.infoSnippets, (s) => `${s.breadcrumb} ${s.content}`, query.query);
        if (query.type === 'json') {
          const body = {
            codeSnippets: code.map((s, i) => ({
              codeTitle: s.title,
              codeDescription: s.description,
              codeLanguage: s.language,
              codeTokens: Math.ceil(s.code.length / 4),
              codeId: `${s.source}#_snippet_${i}`,
              pageTitle: s.pageTitle,
              codeList: [{ language: s.language, code: s.code }],
            })),
            infoSnippets: info.map((s) => ({
              pageId: s.source,
              breadcrumb: s.breadcrumb,
              content: s.content,
              contentTokens: Math.ceil(s.content.length / 4),
            })),
          };
          return send(200, JSON.stringify(body), { 'content-type': 'application/json' });
        }
        const blocks = [
          ...code.map(
            (s) =>
              `### ${s.title}\n\nSource: ${s.source}\n\n${s.description}\n\n\`\`\`${s.language}\n${s.code}\n\`\`\``,
          ),
          ...info.map((s) => `### ${s.breadcrumb}\n\nSource: ${s.source}\n\n${s.content}`),
        ];
        return send(200, blocks.join('\n\n--------------------------------\n\n'), {
          'content-type': 'text/plain; charset=utf-8',
          'x-context7-page': '1',
          'x-context7-total-pages': '1',
          'x-context7-has-next': 'false',
          'x-context7-has-prev': 'false',
        });
      }
      return error(404, { error: 'not_found', message: `No route ${url.pathname}.` });
    };
    if (active?.delayMs) setTimeout(answer, active.delayMs);
    else answer();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    url: `${origin}/api`,
    requests,
    count: (path) => (path === undefined ? requests.length : requests.filter((r) => r.path.includes(path)).length),
    fault(spec) {
      fault = spec ? { ...spec } : undefined;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const nextSource = 'https://github.com/vercel/next.js/blob/canary/docs';

/** Twelve routing sections, so that `limit: 5` gives three pages. */
const nextRouting: FakeContext7InfoSnippet[] = [
  'Defining routes',
  'Pages and layouts',
  'Linking and navigating',
  'Route groups',
  'Dynamic routes',
  'Parallel routes',
  'Intercepting routes',
  'Route handlers',
  'Middleware',
  'Loading UI and streaming',
  'Error handling',
  'Redirecting',
].map((title, i) => ({
  breadcrumb: `Routing > ${title}`,
  content: `${title}: the App Router uses file-system routing, where folders define routes. Routing section ${i + 1} of 12.`,
  source: `${nextSource}/app/building-your-application/routing/${title.toLowerCase().replace(/\s+/g, '-')}.mdx`,
}));

/** The libraries {@link startFakeContext7} hosts by default: Next.js, React, and a library with prose only. */
export const fakeContext7Libraries: FakeContext7Library[] = [
  {
    id: '/vercel/next.js',
    title: 'Next.js',
    description: 'The React Framework',
    versions: ['v16.0.3', 'v15.1.8', 'v14.3.0'],
    stars: 131000,
    trustScore: 10,
    codeSnippets: [
      {
        title: 'Middleware Authentication Example',
        description: 'Shows how to implement authentication checks in Next.js middleware routing',
        language: 'typescript',
        code: "import { NextResponse } from 'next/server'\nexport function middleware(request) {\n  return NextResponse.redirect(new URL('/login', request.url))\n}",
        pageTitle: 'Middleware',
        source: `${nextSource}/middleware.mdx`,
      },
      {
        title: 'Enable Partial Prerendering',
        description: 'Turns on partial pre rendering (PPR) for a route segment',
        language: 'typescript',
        code: 'export const experimental_ppr = true\nexport default function Page() { return <Suspense fallback={<Skeleton />}><Dynamic /></Suspense> }',
        pageTitle: 'Partial Prerendering',
        source: `${nextSource}/app/partial-prerendering.mdx`,
      },
      {
        title: 'Dynamic route segment',
        description: 'A page reading the [slug] parameter of a dynamic routing segment',
        language: 'tsx',
        code: 'export default async function Page({ params }) {\n  const { slug } = await params\n  return <h1>{slug}</h1>\n}',
        pageTitle: 'Dynamic Routes',
        source: `${nextSource}/app/building-your-application/routing/dynamic-routes.mdx`,
      },
    ],
    infoSnippets: [
      ...nextRouting,
      {
        breadcrumb: 'Rendering > Partial Prerendering',
        content:
          'Partial Prerendering (PPR) combines static and dynamic rendering in the same route: a static shell is pre rendering at build time while dynamic holes stream in.',
        source: `${nextSource}/app/partial-prerendering.mdx`,
      },
      {
        breadcrumb: 'Getting Started > Installation',
        content:
          'Next.js is a React framework for building full-stack web applications. Create a project with create-next-app.',
        source: `${nextSource}/getting-started/installation.mdx`,
      },
    ],
  },
  {
    id: '/facebook/react',
    title: 'React',
    description: 'A JavaScript library for building user interfaces',
    versions: ['v19.1.0', 'v18.2.0'],
    stars: 220000,
    trustScore: 10,
    codeSnippets: [
      {
        title: 'useState hook',
        description: 'API reference: declare a state variable with the useState hooks API',
        language: 'jsx',
        code: "import { useState } from 'react'\nfunction Counter() {\n  const [count, setCount] = useState(0)\n  return <button onClick={() => setCount(count + 1)}>{count}</button>\n}",
        pageTitle: 'useState',
        source: 'https://github.com/reactjs/react.dev/blob/main/src/content/reference/react/useState.md',
      },
    ],
    infoSnippets: [
      {
        breadcrumb: 'Learn > Hooks',
        content:
          'Hooks let you use different React features from your components. Rules of hooks: only call hooks at the top level of a component.',
        source: 'https://github.com/reactjs/react.dev/blob/main/src/content/reference/react/hooks.md',
      },
    ],
  },
  {
    id: '/acme/prose-only',
    title: 'Acme Prose',
    description: 'A library whose documentation has no code examples',
    codeSnippets: [],
    infoSnippets: [
      {
        breadcrumb: 'Guide > Overview',
        content: 'Acme Prose is documented in prose only: concepts and guides, no code examples.',
        source: 'https://github.com/acme/prose-only/blob/main/README.md',
      },
    ],
  },
];
