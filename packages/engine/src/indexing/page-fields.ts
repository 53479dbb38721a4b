import type { SearchHit } from '@pro-context/kernel';
import { queryTerms, stem } from '../core/ranking/terms.js';
import type { DocsMeta, LoadedDocs, StoredPage } from './docs-format.js';

/** Weight of a query term found in a page's title (the page's own name). */
const TITLE_WEIGHT = 1;
/** Weight of a query term found only in the texts other pages link to the page with (lower than the title). */
const ANCHOR_WEIGHT = 0.6;
/** Pages whose fields score under this share of the query are not steered. */
const MIN_SCORE = 0.5;

/** One page's fields as term sets (stems), the page's own name first. */
interface PageTerms {
  url: string;
  title: Set<string>;
  /** The title's words, identifiers split into their parts (`hookTimeout`: `hook`, `timeout`). */
  titleWords: string[];
  /** Terms of the link texts, each with how many links use it. */
  anchors: Map<string, number>;
}

/** A page's fields matched against a query: how much of the query they name (0..1). */
export interface PageFieldMatch {
  url: string;
  score: number;
  /** The query names every word of the page's title (an option page asked by its option's words). */
  titleNamed: boolean;
}

function stems(text: string): string[] {
  return queryTerms(text).map(stem);
}

/**
 * The page fields of a library version (issue #28 deliverable 3): each page's title and the texts other pages link
 * to it with (`StoredPage.anchors`), matched against a query. Built once per docs record from its page list
 * (bounded: 50 texts of 80 characters per page), in time linear in that list; a query costs one pass over the
 * pages whose fields hold one of its terms.
 */
export class PageFields {
  private readonly pages: PageTerms[] = [];
  /** Per term: the pages (their index) whose title or link texts hold it. */
  private readonly postings = new Map<string, number[]>();
  /** Per first five letters of a title word (of five letters or more): the pages, for {@link namedBy}'s loose match. */
  private readonly titlePrefixes = new Map<string, number[]>();

  constructor(pages: readonly StoredPage[]) {
    for (const page of pages) {
      const title = new Set(stems(page.title));
      const anchors = new Map<string, number>();
      for (const [text, links] of page.anchors ?? []) {
        for (const term of new Set(stems(text))) anchors.set(term, (anchors.get(term) ?? 0) + links);
      }
      if (title.size === 0 && anchors.size === 0) continue;
      const n = this.pages.length;
      const titleWords = [...new Set(stems(page.title.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/[._-]+/g, ' ')))];
      this.pages.push({ url: page.url, title, titleWords, anchors });
      for (const word of titleWords) {
        if (word.length < 5) continue;
        const prefix = word.slice(0, 5);
        const list = this.titlePrefixes.get(prefix);
        if (!list) this.titlePrefixes.set(prefix, [n]);
        else if (list[list.length - 1] !== n) list.push(n);
      }
      for (const term of new Set([...title, ...anchors.keys()])) {
        let list = this.postings.get(term);
        if (!list) {
          list = [];
          this.postings.set(term, list);
        }
        list.push(n);
      }
    }
  }

  /** Whether any page has fields beyond its title. */
  get size(): number {
    return this.pages.length;
  }

  /**
   * The pages whose fields name most of the query (idf-weighted share of its terms, a title match weighing more
   * than a link text's), best first, at most `limit`, none under {@link MIN_SCORE}. Two adjacent query words also
   * match their joined form (`time out` a title's `timeout`).
   */
  match(query: string, limit: number): PageFieldMatch[] {
    const words = stems(query);
    if (words.length === 0 || this.pages.length === 0) return [];
    const joined = new Set<string>();
    for (let i = 0; i + 1 < words.length; i++) joined.add(`${words[i]}${words[i + 1]}`);
    const terms = [...new Set(words)];
    const total = this.pages.length;
    const idf = (term: string) => Math.log(1 + (total + 0.5) / ((this.postings.get(term)?.length ?? 0) + 0.5));
    let weight = 0;
    for (const term of terms) weight += idf(term);
    const scores = new Map<number, number>();
    const add = (term: string, termWeight: number) => {
      for (const n of this.postings.get(term) ?? []) {
        const page = this.pages[n] as PageTerms;
        const field = page.title.has(term) ? TITLE_WEIGHT : ANCHOR_WEIGHT * anchorShare(page.anchors.get(term) ?? 0);
        scores.set(n, (scores.get(n) ?? 0) + termWeight * field);
      }
    };
    for (const term of terms) add(term, idf(term));
    for (const term of joined) if (!terms.includes(term) && this.postings.has(term)) add(term, idf(term));
    const asked = new Set([...terms, ...joined]);
    for (const term of asked) {
      if (term.length < 5) continue;
      for (const n of this.titlePrefixes.get(term.slice(0, 5)) ?? []) if (!scores.has(n)) scores.set(n, 0);
    }
    const out: PageFieldMatch[] = [];
    for (const [n, raw] of scores) {
      const score = Math.min(1, raw / weight);
      const page = this.pages[n] as PageTerms;
      const titleNamed = page.titleWords.length > 0 && page.titleWords.every((t) => namedBy(t, asked));
      if (score < MIN_SCORE && !titleNamed) continue;
      out.push({ url: page.url, score, titleNamed });
    }
    out.sort((a, b) => b.score - a.score || a.url.localeCompare(b.url));
    return out.slice(0, limit);
  }
}

/**
 * Whether a title word is among the query's words: the same stem, or a shared beginning of five letters or more
 * that leaves at most three letters of the shorter (`isolate`, `isolation`; `parallel`, `parallelism`).
 */
function namedBy(word: string, asked: ReadonlySet<string>): boolean {
  if (asked.has(word)) return true;
  for (const term of asked) {
    const shorter = Math.min(term.length, word.length);
    if (shorter < 5) continue;
    let common = 0;
    while (common < shorter && term.charCodeAt(common) === word.charCodeAt(common)) common++;
    if (common >= 5 && common >= shorter - 3) return true;
  }
  return false;
}

/** A link text's term counts more the more links use it: 1 link 0.5, 3 links 0.75, 9 links 0.9. */
function anchorShare(links: number): number {
  return links / (links + 1);
}

const built = new WeakMap<DocsMeta, PageFields>();

/** The page fields of a docs record, built on first use and kept with the record. */
export function pageFields(record: DocsMeta): PageFields {
  let fields = built.get(record);
  if (!fields) {
    fields = new PageFields(record.pages);
    built.set(record, fields);
  }
  return fields;
}

/** Pages whose fields steer a query's hits, at most. */
const STEERED_PAGES = 3;
/**
 * Weights of the steering, off by default (measured in issue #28's eval, see the README): `anchors` is the share of
 * the best hit's score a page gains per unit of its field score, `title` what it gains when the query names every
 * word of its title. `PRO_CONTEXT_PAGE_FIELDS=anchors:0.1,title:0.1` turns them on (for measuring).
 */
export const pageFieldWeights = parseWeights(process.env.PRO_CONTEXT_PAGE_FIELDS);

function parseWeights(text: string | undefined): { anchors: number; title: number } {
  const weights = { anchors: 0, title: 0 };
  for (const part of (text ?? '').split(',')) {
    const [name, value] = part.split(':');
    const n = Number(value);
    if ((name === 'anchors' || name === 'title') && Number.isFinite(n) && n >= 0 && n <= 1) weights[name] = n;
  }
  return weights;
}

/**
 * The backend's hits steered by the page fields (issue #28): the hit of each page whose title and link texts
 * name the query gains a share of the best hit's score; a page with no hit among them enters with its first
 * chunk at the last hit's score plus that share (the backend ranked it lower than every hit). Reads the chunks of
 * at most {@link STEERED_PAGES} pages.
 */
export async function steerByPageFields(
  hits: readonly SearchHit[],
  docs: Pick<LoadedDocs, 'record' | 'page'>,
  query: string,
): Promise<SearchHit[]> {
  const { anchors, title } = pageFieldWeights;
  if (hits.length === 0 || (anchors === 0 && title === 0)) return [...hits];
  const matches = pageFields(docs.record).match(query, STEERED_PAGES);
  if (matches.length === 0) return [...hits];
  const out = hits.map((h) => ({ ...h }));
  const best = out[0]?.score ?? 0;
  const floor = out[out.length - 1]?.score ?? 0;
  for (const match of matches) {
    const bonus = best * (anchors * match.score + (match.titleNamed ? title : 0));
    if (bonus <= 0) continue;
    const prefix = `${match.url}#`;
    const hit = out.find((h) => h.id.startsWith(prefix));
    if (hit) {
      hit.score += bonus;
      continue;
    }
    const first = (await docs.page(match.url))[0];
    if (first) out.push({ id: first.id, score: floor + bonus });
  }
  return out.sort((a, b) => b.score - a.score);
}
