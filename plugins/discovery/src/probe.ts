import { type HttpClient, type HttpResponse, isProContextError } from '@pro-context/kernel';

/** Which file a probe looks for. */
export type LlmsFileKind = 'llms.txt' | 'llms-full.txt';

/** One URL to probe: the file, where it was derived from, and the site base it sits under. */
export interface ProbeCandidate {
  url: string;
  kind: LlmsFileKind;
  /** The site the file sits under (`https://docs.example.dev/latest`), without a trailing slash. */
  base: string;
  /** Which metadata URL led here. */
  from: 'documentation' | 'homepage';
}

/** What one probe found. */
export interface ProbeOutcome {
  url: string;
  kind: LlmsFileKind;
  base: string;
  /** The URL answered with a real llms.txt / llms-full.txt. */
  hit: boolean;
  /** Why it is not a hit (`HTTP 404`, `an HTML page`), or `found`. */
  reason: string;
  /** The miss may pass (a timeout, a 5xx, a 429): what was learnt is remembered for less time. */
  transient?: boolean;
}

/** Hosts whose pages are a repository or a registry listing, never a documentation site with an llms.txt. */
const NOT_DOCS_SITES = new Set([
  'github.com',
  'www.github.com',
  'gitlab.com',
  'bitbucket.org',
  'codeberg.org',
  'pypi.org',
  'www.npmjs.com',
  'npmjs.com',
]);

/**
 * The site base a metadata URL names: http(s) only, without query and fragment, a file name
 * (`index.html`, `llms.txt`) dropped, no trailing slash. `undefined` for other schemes, unparsable URLs and
 * repository or registry pages (their llms.txt would be a 404 page at best).
 */
export function siteBase(raw: string | undefined): string | undefined {
  if (!raw || !URL.canParse(raw.trim())) return undefined;
  const url = new URL(raw.trim());
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (NOT_DOCS_SITES.has(url.hostname.toLowerCase())) return undefined;
  url.search = '';
  url.hash = '';
  const segments = url.pathname.split('/');
  if (/\.[a-z0-9]+$/i.test(segments.at(-1) ?? '')) segments.pop();
  url.pathname = segments.join('/');
  // a scan, not `/\/+$/` (which retries from every `/` of a long run that does not end the URL)
  let end = url.href.length;
  while (end > 0 && url.href.charCodeAt(end - 1) === 0x2f) end -= 1;
  return url.href.slice(0, end);
}

/**
 * The URLs to probe, in order (issue #8): `{docs}/llms.txt`, `{docs}/llms-full.txt`, `{homepage}/llms.txt`;
 * each URL once (npm's documentation URL is its homepage).
 */
export function probeCandidates(documentationUrl: string | undefined, homepage: string | undefined): ProbeCandidate[] {
  const docs = siteBase(documentationUrl);
  const home = siteBase(homepage);
  const all: ProbeCandidate[] = [];
  if (docs) {
    all.push({ url: `${docs}/llms.txt`, kind: 'llms.txt', base: docs, from: 'documentation' });
    all.push({ url: `${docs}/llms-full.txt`, kind: 'llms-full.txt', base: docs, from: 'documentation' });
  }
  if (home) all.push({ url: `${home}/llms.txt`, kind: 'llms.txt', base: home, from: 'homepage' });
  const seen = new Set<string>();
  return all.filter((c) => !seen.has(c.url) && Boolean(seen.add(c.url)));
}

/**
 * Why a body is not an llms.txt (or llms-full.txt), or `undefined` when it is one: text, not HTML (a docs
 * site's 404 or login page served with 200), not JSON or XML, with a markdown heading or link near the top.
 */
export function notLlmsText(text: string, contentType = ''): string | undefined {
  const body = text.replace(/^\uFEFF/, '');
  if (!body.trim()) return 'an empty file';
  const head = body.slice(0, 4096);
  if (head.includes('\u0000')) return 'a binary file';
  const start = body.trimStart().slice(0, 512).toLowerCase();
  if (/^(?:<!doctype html|<html[\s>]|<head[\s>]|<body[\s>]|<meta[\s>])/.test(afterLeadingComments(start)))
    return 'an HTML page';
  if (/html|xml/.test(contentType.toLowerCase()) && start.startsWith('<')) return 'an HTML page';
  if (start.startsWith('<?xml')) return 'an XML file';
  if (/^[[{]/.test(start)) {
    try {
      JSON.parse(body);
      return 'a JSON file';
    } catch {
      // markdown may start with a link
    }
  }
  const sample = body.slice(0, 65_536);
  if (!/(^|\n) {0,3}#{1,6}[ \t]+\S|\[[^[\]\n]+\]\([^)\s]/.test(sample)) return 'not markdown (no heading or link)';
  return undefined;
}

/** How a probe is made. */
export interface ProbeOptions {
  timeoutMs: number;
  /** Bytes asked for with `Range`. */
  bytes: number;
  signal?: AbortSignal;
}

/** Most a probe reads from a server that ignores `Range` before giving up on the body. */
const MAX_PROBE_BODY = 2 * 1024 * 1024;
const ACCEPT = 'text/plain, text/markdown;q=0.9, */*;q=0.5';

function statusMiss(candidate: ProbeCandidate, response: HttpResponse): ProbeOutcome {
  const transient = response.status >= 500 || response.status === 429;
  return { ...outcome(candidate), reason: `HTTP ${response.status}`, ...(transient ? { transient } : {}) };
}

const outcome = (c: ProbeCandidate) => ({ url: c.url, kind: c.kind, base: c.base, hit: false });

/**
 * Probes one URL through the kernel's guarded client (its SSRF guard checks every hop): a ranged GET of
 * the first `bytes` with a short deadline and no retries. A body too large to read whole (a server that
 * ignores `Range`) is judged by a HEAD's content type.
 */
export async function probe(http: HttpClient, candidate: ProbeCandidate, options: ProbeOptions): Promise<ProbeOutcome> {
  const common = {
    timeoutMs: options.timeoutMs,
    retries: 0,
    ...(options.signal ? { signal: options.signal } : {}),
  };
  let response: HttpResponse;
  try {
    response = await http.get(candidate.url, {
      ...common,
      headers: { accept: ACCEPT, range: `bytes=0-${options.bytes - 1}` },
      maxBodyBytes: Math.max(MAX_PROBE_BODY, options.bytes),
    });
  } catch (error) {
    if (options.signal?.aborted) throw error;
    if (isProContextError(error) && error.code === 'INVALID_CONTENT' && error.details?.maxBodyBytes !== undefined)
      return probeLarge(http, candidate, common);
    const reason = error instanceof Error ? error.message.replace(/\.$/, '') : String(error);
    const transient = !isProContextError(error) || error.code === 'SOURCE_UNAVAILABLE';
    return { ...outcome(candidate), reason, ...(transient ? { transient } : {}) };
  }
  if (response.status !== 200 && response.status !== 206) return statusMiss(candidate, response);
  const not = notLlmsText(response.text(), response.headers['content-type']);
  return not ? { ...outcome(candidate), reason: `${not}, not an ${candidate.kind}` } : found(candidate);
}

const found = (candidate: ProbeCandidate): ProbeOutcome => ({ ...outcome(candidate), hit: true, reason: 'found' });

/** A file too large to read for a probe: a text content type at a 200 is taken for the file. */
async function probeLarge(
  http: HttpClient,
  candidate: ProbeCandidate,
  common: { timeoutMs: number; retries: number; signal?: AbortSignal },
): Promise<ProbeOutcome> {
  try {
    const head = await http.request(candidate.url, { ...common, method: 'HEAD', headers: { accept: ACCEPT } });
    if (head.status !== 200) return statusMiss(candidate, head);
    const type = (head.headers['content-type'] ?? '').toLowerCase();
    if (/^text\/(plain|markdown|x-markdown)/.test(type)) return found(candidate);
    return { ...outcome(candidate), reason: `a large ${type || 'untyped'} file, not an ${candidate.kind}` };
  } catch (error) {
    if (common.signal?.aborted) throw error;
    const reason = error instanceof Error ? error.message.replace(/\.$/, '') : String(error);
    return { ...outcome(candidate), reason, transient: true };
  }
}

/**
 * `start` after the HTML comments (and the whitespace after each) it opens with; an unclosed comment stays. A scan:
 * the regex `^(<!--[\s\S]*?-->\s*)*` backtracked exponentially on a run of empty comments (213 bytes of `<!---->`: 14 s).
 */
function afterLeadingComments(start: string): string {
  let rest = start;
  while (rest.startsWith('<!--')) {
    const end = rest.indexOf('-->', 4);
    if (end === -1) break;
    rest = rest.slice(end + 3).trimStart();
  }
  return rest;
}
