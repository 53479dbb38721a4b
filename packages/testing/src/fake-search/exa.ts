import http from 'node:http';
import { type FakeApi, type FakeApiAnswer, type FakeApiRequest, startFakeApi } from './server.js';

/** One page the fake Exa index holds. */
export interface FakeExaPage {
  url: string;
  title: string | null;
  text: string;
  publishedDate?: string;
  author?: string;
  /** Exa categories the page belongs to (`news`, `research paper`, `github`…). */
  categories?: string[];
}

/** Options of {@link startFakeExa}. */
export interface FakeExaOptions {
  /** The key the fake accepts in `x-api-key`. Default `fake-exa-key`. */
  apiKey?: string;
  /** The index (default {@link fakeExaPages}). */
  pages?: FakeExaPage[];
}

/** A loopback fake of Exa's REST API (`/search`, `/findSimilar`). */
export interface FakeExa extends FakeApi {
  apiKey: string;
}

/** A small index of pages about Python web frameworks and HTTP clients. */
export const fakeExaPages: FakeExaPage[] = [
  {
    url: 'https://fastapi.tiangolo.com/tutorial/dependencies/',
    title: 'Dependencies - FastAPI',
    text: 'FastAPI has a very powerful but intuitive Dependency Injection system. Declare a dependency with Depends() and FastAPI calls it for each request, passing the result to your path operation function.',
    publishedDate: '2026-03-02T00:00:00.000Z',
    categories: ['documentation'],
  },
  {
    url: 'https://fastapi.tiangolo.com/tutorial/dependencies/dependencies-with-yield/',
    title: 'Dependencies with yield - FastAPI',
    text: 'FastAPI supports dependencies that do some extra steps after finishing. To do this, use yield instead of return, and write the extra steps (code) after.',
    publishedDate: '2026-03-02T00:00:00.000Z',
    categories: ['documentation'],
  },
  {
    url: 'https://www.python-httpx.org/async/',
    title: 'Async Support - HTTPX',
    text: 'HTTPX offers a standard synchronous API by default, but also gives you the option of an async client if you need it. Use httpx.AsyncClient with async with to make requests concurrently.',
    publishedDate: '2025-12-11T00:00:00.000Z',
    author: 'Encode',
    categories: ['documentation'],
  },
  {
    url: 'https://news.example.org/2026/python-3-14-released',
    title: 'Python 3.14 released with free-threaded builds',
    text: 'The Python core team released Python 3.14, whose free-threaded build is now officially supported. Async frameworks such as FastAPI report faster startup.',
    publishedDate: '2026-10-07T09:30:00.000Z',
    author: 'Example News',
    categories: ['news'],
  },
  {
    url: 'https://arxiv.org/abs/2601.01234',
    title: 'Retrieval-augmented code generation with versioned documentation',
    text: 'We study how giving code models version-specific library documentation reduces hallucinated APIs. Retrieval of the matching version halves the error rate.',
    publishedDate: '2026-01-05T00:00:00.000Z',
    author: 'A. Researcher',
    categories: ['research paper'],
  },
  {
    url: 'https://github.com/encode/httpx',
    title: null,
    text: 'HTTPX is a fully featured HTTP client for Python 3, which provides sync and async APIs, and support for both HTTP/1.1 and HTTP/2.',
    categories: ['github'],
  },
  {
    url: 'https://stackoverflow.com/questions/70000001/fastapi-depends-yield-cleanup',
    title: 'FastAPI Depends with yield: cleanup after response',
    text: 'The code after yield in a FastAPI dependency runs after the response is sent. Use a try/finally block so that the database session is closed even when an exception is raised.',
    publishedDate: '2025-08-19T00:00:00.000Z',
  },
];

/** Exa's JSON error body. */
export function exaErrorBody(status: number, path: string, message?: string): unknown {
  const error =
    message ??
    (status === 401
      ? 'Invalid API key'
      : status === 429
        ? 'You have exceeded your rate limit. Please retry after some time.'
        : (http.STATUS_CODES[status] ?? 'Error'));
  return { requestId: `req-${status}`, error, statusCode: status, timestamp: new Date(0).toISOString(), path };
}

const words = (text: string) => new Set(text.toLowerCase().match(/[a-z0-9]+/g) ?? []);

/** Pages ranked by shared words with the query (ties keep index order), every page scored. */
function rank(pages: FakeExaPage[], query: string): { page: FakeExaPage; score: number }[] {
  const terms = words(query);
  return pages
    .map((page, index) => {
      const bag = words(`${page.title ?? ''} ${page.text}`);
      const shared = [...terms].filter((t) => bag.has(t)).length;
      return { page, index, score: terms.size === 0 ? 0 : shared / terms.size };
    })
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .map(({ page, score }) => ({ page, score: Math.round((0.5 + score / 2) * 1000) / 1000 }));
}

interface ContentsRequest {
  text?: boolean | { maxCharacters?: number };
  highlights?: boolean | { numSentences?: number; highlightsPerUrl?: number };
  summary?: unknown;
}

function resultOf(page: FakeExaPage, score: number, index: number, contents: ContentsRequest | undefined) {
  const maxCharacters = typeof contents?.text === 'object' ? (contents.text.maxCharacters ?? 10_000) : 10_000;
  const wantsText = contents === undefined || contents.text !== undefined; // exa-js asks text by default
  const sentences = page.text.split(/(?<=\.)\s+/);
  return {
    id: page.url,
    url: page.url,
    title: page.title,
    ...(page.publishedDate ? { publishedDate: page.publishedDate } : {}),
    ...(page.author ? { author: page.author } : {}),
    score,
    ...(wantsText && contents?.text !== false ? { text: page.text.slice(0, maxCharacters) } : {}),
    ...(contents?.highlights ? { highlights: sentences.slice(0, 1), highlightScores: [score] } : {}),
    favicon: `${new URL(page.url).origin}/favicon.ico`,
    _order: index,
  };
}

/**
 * Starts a loopback Exa API: `POST /search` ranks the fake index by shared words (honouring `numResults`,
 * `type`, `category`, `includeDomains`, `excludeDomains` and `contents.text` / `contents.highlights`),
 * `POST /findSimilar` answers pages other than the given URL (its domain left out with
 * `excludeSourceDomain`), both in Exa's response shape (`requestId`, `resolvedSearchType`, `results`,
 * `searchTime`, `costDollars`); 401 without or with a wrong `x-api-key`, 400 without a query or URL; faults
 * (429 with `Retry-After`, 5xx, slow answers) in Exa's error shape.
 */
export async function startFakeExa(options: FakeExaOptions = {}): Promise<FakeExa> {
  const apiKey = options.apiKey ?? 'fake-exa-key';
  const pages = options.pages ?? fakeExaPages;
  let served = 0;
  const route = (request: FakeApiRequest): FakeApiAnswer => {
    const path = request.path.split('?')[0] ?? '';
    if (request.method !== 'POST' || (path !== '/search' && path !== '/findSimilar')) {
      return { status: 404, body: exaErrorBody(404, path, `Cannot ${request.method} ${path}`) };
    }
    if (request.headers['x-api-key'] !== apiKey) return { status: 401, body: exaErrorBody(401, path) };
    const body = (request.body ?? {}) as {
      query?: string;
      url?: string;
      type?: string;
      numResults?: number;
      category?: string;
      includeDomains?: string[];
      excludeDomains?: string[];
      excludeSourceDomain?: boolean;
      contents?: ContentsRequest;
    };
    const numResults = body.numResults ?? 10;
    if (!Number.isInteger(numResults) || numResults < 1 || numResults > 100) {
      return { status: 400, body: exaErrorBody(400, path, 'numResults must be an integer between 1 and 100') };
    }
    const hostOf = (url: string) => new URL(url).hostname;
    let candidates = pages;
    let query: string;
    if (path === '/search') {
      if (!body.query?.trim()) return { status: 400, body: exaErrorBody(400, path, 'query is required') };
      query = body.query;
      if (body.category) candidates = candidates.filter((p) => p.categories?.includes(body.category as string));
    } else {
      if (!body.url) return { status: 400, body: exaErrorBody(400, path, 'url is required') };
      const source = pages.find((p) => p.url === body.url);
      query = source ? `${source.title ?? ''} ${source.text}` : body.url.replace(/[^A-Za-z0-9]+/g, ' ');
      candidates = candidates.filter((p) => p.url !== body.url);
      if (body.excludeSourceDomain) candidates = candidates.filter((p) => hostOf(p.url) !== hostOf(body.url as string));
    }
    if (body.includeDomains?.length)
      candidates = candidates.filter((p) => body.includeDomains?.includes(hostOf(p.url)));
    if (body.excludeDomains?.length)
      candidates = candidates.filter((p) => !body.excludeDomains?.includes(hostOf(p.url)));
    const ranked = rank(candidates, query)
      .slice(0, numResults)
      .map(({ page, score }, i) => {
        const { _order, ...result } = resultOf(
          page,
          body.type === 'keyword' ? Math.round(score * 100) / 100 : score,
          i,
          body.contents,
        );
        return result;
      });
    served++;
    return {
      status: 200,
      body: {
        requestId: `fake-exa-${served}`,
        resolvedSearchType: path === '/findSimilar' ? 'neural' : (body.type ?? 'auto'),
        results: ranked,
        searchTime: 0.42,
        costDollars: { total: 0.005, search: { neural: 0.005 } },
      },
    };
  };
  const api = await startFakeApi(route, (status, path) => exaErrorBody(status, path.split('?')[0] ?? path));
  return { ...api, apiKey };
}
