import { walkLines } from '@pro-context/markdown';
import type { StoredChunk } from '../../indexing/doc-store.js';
import { chunkCoverage, type RankedChunk } from './chunks.js';
import { boostCited, type PageResolver } from './cited.js';
import { asksAboutVersions, HISTORY_KINDS, pageKind } from './kinds.js';
import { headingIdentifier, headingText } from './labels.js';
import { remember } from './memo.js';
import { analyzeQuery } from './query.js';
import { isPointer, steer } from './steer.js';
import { lowerCoverage } from './terms.js';

/**
 * API identifiers a query names: words shaped like code (`setupFiles`, `model_validator`, `expect.poll`,
 * `useEffect()`, `@field_validator`, `no-unused-vars`, `TypeAdapter`), without a call's parentheses or a
 * decorator's `@`. Plain words (`Query`, `validators`) are not identifiers.
 */
export function queryIdentifiers(query: string): string[] {
  const out = new Set<string>();
  for (const raw of query.match(/[@$]?[A-Za-z_$][\w$]*(?:[.:-][A-Za-z_$][\w$]*)*(?:\(\))?/g) ?? []) {
    const word = raw.replace(/^@/, '').replace(/\(\)$/, '');
    const shaped =
      /[a-z0-9][_.][A-Za-z]|[A-Za-z][_.][a-z0-9]/.test(word) || // snake_case, dotted
      /^[a-z$]+[A-Z]/.test(word) || // camelCase
      // PascalCase of two words or more (`TypeAdapter`, `HTMLResponse`; not a product name like `OpenAPI`)
      (/^[A-Z][A-Za-z0-9]*$/.test(word) && /[a-z][A-Z][a-z]|[A-Z]{2}[a-z]/.test(word)) ||
      /^[a-z]+(?:-[a-z0-9]+){2,}$/.test(word) || // rule-like-names (two hyphens at least)
      raw.endsWith('()') ||
      raw.startsWith('@');
    // a product named like a file (`Node.js`, `Vue.js`) is not an API
    if (shaped && word.length > 2 && !/^[A-Z][a-z]+\.js$/.test(word)) out.add(word);
  }
  return [...out];
}

/** Results of {@link wordForm} by text: re-ranking asks for the same headings on every query. */
const wordForms = new Map<string, string>();

/** The words of an identifier or heading, lower-cased, a plural `s` off (`model_validator` ~ `Model validators`). */
function wordForm(text: string): string {
  let form = wordForms.get(text);
  if (form === undefined) {
    form = wordFormOf(text);
    remember(wordForms, text, form);
  }
  return form;
}

function wordFormOf(text: string): string {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean)
    .map((w) => (w.length > 3 ? w.replace(/s$/, '') : w))
    .join(' ');
}

/**
 * How a chunk's headings name an identifier: its page's title exactly (3: the API's own page, every section of
 * it, in the backend's order), its own section's heading exactly on another page (2: `poll` on the page
 * `expect` names `expect.poll`), its own heading in words (1: `Model validators` for `model_validator`), or not
 * at all (0).
 */
function titleMatch(chunk: StoredChunk, identifier: string): number {
  const wanted = identifier.toLowerCase();
  const top = chunk.headings[0] ?? chunk.pageTitle;
  if (headingIdentifier(chunk.pageTitle) === wanted || headingIdentifier(top) === wanted) return 3;
  const inWords = (heading: string) => /[_\-.]/.test(identifier) && wordForm(heading) === wordForm(identifier);
  if (chunk.headings.length <= 1) return inWords(top) ? 1 : 0;
  // a heading the chunk's text holds counts too (a short section is served joined to its first subsection)
  if (bodyHeadings(chunk).some((h) => h !== top && h !== chunk.pageTitle && headingIdentifier(h) === wanted)) return 2;
  const own = chunk.headings[chunk.headings.length - 1] as string;
  const parent = chunk.headings[chunk.headings.length - 2] as string;
  const name = headingIdentifier(own);
  if (name === wanted || `${headingIdentifier(parent)}.${name}` === wanted) return 2;
  return inWords(own) ? 1 : 0;
}

const bodyHeadingLists = new WeakMap<StoredChunk, string[]>();

/** The heading lines of a chunk's text, outside code (kept per chunk). */
function bodyHeadings(chunk: StoredChunk): string[] {
  let list = bodyHeadingLists.get(chunk);
  if (list === undefined) {
    const found: string[] = [];
    // most chunks hold no heading of their own (the chunker splits at headings): one scan says so
    if (/^ {0,3}#{1,6}[ \t]/m.test(chunk.body))
      walkLines(chunk.body.split('\n'), (line, _index, _heading, inCode) => {
        const text = inCode ? undefined : headingText(line);
        if (text !== undefined) found.push(text);
        return true;
      });
    list = found;
    bodyHeadingLists.set(chunk, list);
  }
  return list;
}

const titleKeyLists = new WeakMap<StoredChunk, string[]>();

/** The identifiers and the word form a chunk's own heading names (kept per chunk: chunks outlive one query's map). */
function titleKeys(chunk: StoredChunk): string[] {
  let keys = titleKeyLists.get(chunk);
  if (keys === undefined) {
    const own = chunk.headings[chunk.headings.length - 1] ?? chunk.pageTitle;
    const parent = chunk.headings.length > 1 ? (chunk.headings[chunk.headings.length - 2] as string) : chunk.pageTitle;
    const name = headingIdentifier(own);
    const held = bodyHeadings(chunk).map(headingIdentifier);
    keys = [...new Set([name, ...held, `${headingIdentifier(parent)}.${name}`, `~${wordForm(own)}`])];
    titleKeyLists.set(chunk, keys);
  }
  return keys;
}

/**
 * For each of `keys`, the first `limit` chunks of a map whose own heading names it (see {@link titleKeys}), in
 * the map's order. One pass over the map per query (it is the query's own): indexing every key of every chunk
 * cost more than looking for the few keys asked.
 */
function titledChunks(
  chunks: ReadonlyMap<string, StoredChunk>,
  keys: readonly string[],
  limit: number,
): Map<string, StoredChunk[]> {
  const found = new Map<string, StoredChunk[]>(keys.map((key) => [key, []]));
  let open = found.size;
  for (const chunk of chunks.values()) {
    if (open === 0) break;
    for (const key of titleKeys(chunk)) {
      const list = found.get(key);
      if (list === undefined || list.length >= limit) continue;
      list.push(chunk);
      if (list.length === limit) open -= 1;
    }
  }
  return found;
}

/** Lower-case runs of `[a-z0-9_.$@-]` in `text` (the term index's words). */
const termRuns = (text: string): string[] => text.toLowerCase().match(/[a-z0-9_.$@-]+/g) ?? [];

/**
 * What {@link rerank} looks for beyond the backend's hits, as lists of words a chunk's text must all contain:
 * each identifier the query names (whole, its last dotted part, its words) and the first words of each error
 * message it quotes. The engine reads the chunks the term index finds for them and hands them to `rerank`.
 */
export function rerankLookups(query: string): string[][] {
  const out: string[][] = [];
  for (const identifier of queryIdentifiers(query)) {
    out.push(termRuns(identifier));
    const last = identifier.split('.').at(-1) as string;
    if (last !== identifier) out.push(termRuns(last));
    if (/[_\-.]/.test(identifier)) out.push(wordForm(identifier).split(' '));
  }
  for (const phrase of errorPhrases(query)) out.push(termRuns(phrase).slice(0, 3));
  const seen = new Set<string>();
  return out.filter((words) => {
    const key = words.join(' ');
    if (words.length === 0 || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * An error message or status a query quotes (`422 Unprocessable Entity`, `Failed to resolve import`,
 * `Cannot find module`, `TypeError: x is not a function`): the phrases to look for verbatim, longest first.
 * None when the query does not look like an error.
 */
export function errorPhrases(query: string): string[] {
  const out: string[] = [];
  const status = /\b([45]\d\d)(\s+[A-Z][\w-]*(?:\s+[A-Z][\w-]*)*)?/.exec(query);
  if (status && (status[2] || /\b(?:error|status|response|code)\b/i.test(query)))
    out.push(`${status[1]}${status[2] ?? ''}`.trim());
  const cue =
    /\b((?:\w+(?:Error|Exception):\s*)?(?:failed to|cannot|can't|could not|couldn't|unable to|is not (?:defined|a function|a constructor|allowed|supported)|no such|no module named|has no attribute|unexpected (?:token|keyword)|not found|not fully defined|not installed|is required|undefined is not|maximum call stack)\b[^.?!,;:()"]*)/i.exec(
      query,
    );
  if (cue?.[1]) out.push((cue[1].trim().split(/\s+/).slice(0, 8) as string[]).join(' '));
  return out;
}

const plainTexts = new WeakMap<StoredChunk, string>();

/** A chunk's headings and body, lower-cased, without inline markup, whitespace collapsed (kept per chunk). */
function plainText(chunk: StoredChunk): string {
  let text = plainTexts.get(chunk);
  if (text === undefined) {
    text = `${chunk.headings.join(' ')} ${chunk.body}`.toLowerCase().replace(/[`*_]/g, '').replace(/\s+/g, ' ');
    plainTexts.set(chunk, text);
  }
  return text;
}

/**
 * The error phrases as the docs quote them: each phrase of two words or more, else its longest beginning of
 * three words or more that some chunk contains (`Failed to resolve import` is quoted as `Failed to resolve
 * "foo"`). Lower-cased.
 */
function quotedPhrases(phrases: readonly string[], chunks: ReadonlyMap<string, StoredChunk>): string[] {
  const out: string[] = [];
  for (const phrase of phrases) {
    const words = phrase.toLowerCase().split(/\s+/).filter(Boolean);
    if (words.length < 2) continue;
    for (let k = words.length; k >= Math.min(3, words.length); k--) {
      const prefix = words.slice(0, k).join(' ');
      if (k === words.length && k < 3) {
        out.push(prefix);
        break;
      }
      let seen = false;
      for (const chunk of chunks.values()) {
        if (plainText(chunk).includes(prefix)) {
          seen = true;
          break;
        }
      }
      if (seen) {
        out.push(prefix);
        break;
      }
    }
  }
  return out;
}

/** Share of the question's terms a page's title must name for the question to ask about the page as a whole. */
const PAGE_QUESTION = 0.5;

/**
 * For a question about a page as a whole (its title names at least {@link PAGE_QUESTION} of the question's
 * terms: "how do I configure proxies" and the page `Proxies`), the page's candidates take its scores in the
 * page's own order: its beginning (what it is, the common case) first, the special cases (`SOCKS`) after, however
 * short they are (pointer sections aside: they stay below what they point to). In place.
 */
function beginningsFirst(items: readonly RankedChunk[], terms: readonly string[]): void {
  if (terms.length === 0) return;
  const byPage = new Map<string, RankedChunk[]>();
  for (const item of items) {
    // a pointer section keeps its place below what it points to
    if (isPointer(item.chunk)) continue;
    const page = item.chunk.url.split('#')[0] as string;
    const list = byPage.get(page);
    if (list) list.push(item);
    else byPage.set(page, [item]);
  }
  for (const list of byPage.values()) {
    if (list.length < 2) continue;
    const title = (list[0] as RankedChunk).chunk.pageTitle.toLowerCase();
    const named = lowerCoverage(terms, title);
    // the question names the page and one more word at most ("configure", "use")
    if (named < PAGE_QUESTION || Math.round((1 - named) * terms.length) > 1) continue;
    const scores = list.map((item) => item.score).sort((a, b) => b - a);
    list.sort((a, b) => a.chunk.order - b.chunk.order);
    list.forEach((item, i) => {
      item.score = scores[i] as number;
    });
  }
}

/** Weight of a section titled in words by an identifier the query names (`Model validators`, `model_validator`). */
const WORD_TITLE_BOOST = 1.15;
/** Weight of a history page (blog, changelog, release notes) for a query that does not ask about versions. */
const HISTORY_SHARE = 0.6;
/** Weight of a troubleshooting page, and of a section quoting the query's error message, for an error query. */
const ERROR_BOOST = 1.5;

/**
 * Re-ranks the search backend's candidates (best first) for the shapes of documentation its text score
 * misses, and adds the chunks it did not return that these rules call for:
 * - a section or page titled by an API identifier the query names (`setupFiles`, `useEffect`,
 *   `model_validator`, `expect.poll`) ranks first, ahead of pages that merely mention it;
 * - blog posts, changelogs and release notes weigh {@link HISTORY_SHARE} of their score unless the query asks
 *   about versions, changes, releases or news ({@link asksAboutVersions}): they repeat every feature's name;
 * - the best section of a page several of the best pages link to gains (`boostCited`, when `resolve` is given);
 * - for a query quoting an error message or status ({@link errorPhrases}), troubleshooting and error pages and
 *   the sections quoting that message weigh {@link ERROR_BOOST} times more.
 */
export function rerank(
  ranked: readonly RankedChunk[],
  query: string,
  chunks: ReadonlyMap<string, StoredChunk>,
  terms: readonly string[],
  resolve?: PageResolver,
): RankedChunk[] {
  const top = ranked[0]?.score ?? 0;
  if (top <= 0) return [...ranked];
  const out = new Map<string, RankedChunk>(ranked.map((item) => [item.chunk.id, { ...item }]));
  const coverageOf = (chunk: StoredChunk) => chunkCoverage(terms, chunk);
  const add = (chunk: StoredChunk, score: number) => {
    if (!out.has(chunk.id)) out.set(chunk.id, { chunk, score, coverage: coverageOf(chunk) });
  };
  // sections quoting the error message, where the backend's words did not reach them
  const phrases = errorPhrases(query);
  const quoted = quotedPhrases(phrases, chunks);
  const quoting = (chunk: StoredChunk): boolean => {
    const text = plainText(chunk);
    return quoted.some((phrase) => text.includes(phrase));
  };
  if (quoted.length > 0) {
    let found = 0;
    for (const chunk of chunks.values()) {
      if (found >= 20) break;
      if (!out.has(chunk.id) && quoting(chunk)) {
        add(chunk, top * 0.8);
        found += 1;
      }
    }
  }
  // chunks titled by a named identifier, wherever the backend ranked them
  const identifiers = queryIdentifiers(query);
  const keysOf = (identifier: string) => [identifier.toLowerCase(), `~${wordForm(identifier)}`];
  const titled = titledChunks(chunks, identifiers.flatMap(keysOf), 20);
  for (const identifier of identifiers) {
    for (const chunk of keysOf(identifier)
      .flatMap((key) => titled.get(key) ?? [])
      .slice(0, 20))
      add(chunk, top * 0.5);
  }
  // what the question asks steers the scores: headings naming its terms, its intent, a comparison's subjects
  const analysis = analyzeQuery(query);
  steer(out.values(), analysis, terms);
  // the page several of the best candidates link to (with the library's pages to resolve links against)
  if (resolve) boostCited([...out.values()], resolve, terms);
  if (analysis.intent === 'howto') beginningsFirst([...out.values()], terms);
  const history = !asksAboutVersions(query);
  const error = phrases.length > 0;
  let best = 0;
  for (const item of out.values()) {
    const kind = pageKind(item.chunk.url, item.chunk.pageTitle);
    if (history && HISTORY_KINDS.has(kind)) item.score *= HISTORY_SHARE;
    if (error && kind === 'troubleshooting') item.score *= ERROR_BOOST;
    if (quoted.length > 0 && quoting(item.chunk)) item.score *= ERROR_BOOST;
    best = Math.max(best, item.score);
  }
  if (identifiers.length > 0) {
    for (const item of out.values()) {
      const titled = Math.max(0, ...identifiers.map((identifier) => titleMatch(item.chunk, identifier)));
      // titled exactly: first (the sections of a page so titled, then sections so titled elsewhere), in their
      // own order, just above the best of the rest, so that the scores of what follows keep their meaning (get-docs'
      // cut-off compares them with the best)
      if (titled >= 2) item.score = best * (titled === 3 ? 1.04 : 1.02) + item.score * 0.01;
      // titled in words (`Model validators` for `model_validator`): a heading, not necessarily the API's own
      else if (titled === 1) item.score *= WORD_TITLE_BOOST;
    }
  }
  return [...out.values()].sort((a, b) => b.score - a.score);
}
