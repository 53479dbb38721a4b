import type { CodeTokenizer } from './tokenizer.js';

/** A page as the page fields read it: its title and the texts other pages link to it with (`[text, links]`). */
export interface FieldPage {
  url: string;
  title: string;
  anchors?: readonly (readonly [string, number])[];
}

/** A page's fields matched against a query. */
export interface PageFieldMatch {
  url: string;
  title: string;
  /** Idf-weighted share of the query's terms the page's title (weight 1) and link texts (less) hold, 0..1. */
  score: number;
  /**
   * When the query names every word of the page's title (`hookTimeout` by "my hook times out"): how specific
   * that title is, 0..1 (1: no other page's fields hold all its words; a title of one common word, near 0).
   */
  titleNamed: number;
}

/** Weight of a query term found only in the link texts of a page (its title's weighs 1). */
export const ANCHOR_FIELD_WEIGHT = 0.6;

/** What naming a title of one word counts for, against a title of several words all named. */
export const ONE_WORD_TITLE = 0.5;

/** Related terms kept per term, at most. */
export const MAX_RELATED_PER_TERM = 3;
/** Related-term pairs kept per library, at most. */
export const MAX_RELATED_TERMS = 2_000;

interface PageTerms {
  url: string;
  /** The page's title as given. */
  name: string;
  /** Terms of the title (identifiers split, the whole identifier too). */
  title: Set<string>;
  /** The title's words only, identifiers split (`hookTimeout`: `hook`, `timeout`). */
  titleWords: string[];
  /** Terms of the link texts, each with how many links use it. */
  anchors: Map<string, number>;
}

function termsOf(tokenizer: CodeTokenizer, text: string): string[] {
  const out: string[] = [];
  tokenizer.indexTerms(text, (_surface, term) => {
    out.push(term);
  });
  return out;
}

/** `hookTimeout` as `hook Timeout`, `test.environment` as `test environment`: the words of an identifier. */
function identifierWords(text: string): string {
  return text.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/[._-]+/g, ' ');
}

/**
 * The page fields of one library version (issue #28 deliverable 3), analysed as the search backends analyse text
 * (the same tokenizer: stems, identifiers split, stop words): each page's title and the texts other pages link to
 * it with. {@link match} finds the pages whose fields name a query; {@link related} the terms the corpus itself
 * relates (a word of the texts pages are linked with, and a word of the titles of the pages they link to, that
 * several pages pair). Built in time linear in the pages' fields (bounded: 50 texts of 80 characters per page).
 */
export class PageFieldIndex {
  private readonly pages: PageTerms[] = [];
  /** Per term: the pages (their index) whose title or link texts hold it, in order. */
  private readonly postings = new Map<string, number[]>();
  private readonly relatedTerms = new Map<string, string[]>();

  constructor(
    private readonly tokenizer: CodeTokenizer,
    pages: readonly FieldPage[],
  ) {
    for (const page of pages) {
      const title = new Set(termsOf(tokenizer, page.title));
      const anchors = new Map<string, number>();
      for (const [text, links] of page.anchors ?? []) {
        for (const term of new Set(termsOf(tokenizer, text))) anchors.set(term, (anchors.get(term) ?? 0) + links);
      }
      if (title.size === 0 && anchors.size === 0) continue;
      const n = this.pages.length;
      const titleWords = [...new Set(termsOf(tokenizer, identifierWords(page.title)))];
      this.pages.push({ url: page.url, name: page.title, title, titleWords, anchors });
      for (const term of new Set([...title, ...anchors.keys()])) {
        const list = this.postings.get(term);
        if (list) list.push(n);
        else this.postings.set(term, [n]);
      }
    }
    this.mineRelated();
  }

  /** Pages with fields. */
  get size(): number {
    return this.pages.length;
  }

  private idf(term: string): number {
    const total = this.pages.length;
    return Math.log(1 + (total + 0.5) / ((this.postings.get(term)?.length ?? 0) + 0.5));
  }

  /**
   * The pages whose fields name the query best, at most `limit`: those holding at least `minScore` of it
   * ({@link PageFieldMatch.score}) or naming every word of their title. Two adjacent query words also match their
   * joined form (`time out`: a title's `timeout`).
   */
  match(query: string, limit: number, minScore = 0.5): PageFieldMatch[] {
    const sequence: { surface: string; term: string }[] = [];
    this.tokenizer.indexTerms(query, (surface, term) => {
      sequence.push({ surface, term });
    });
    if (sequence.length === 0 || this.pages.length === 0) return [];
    const terms = [...new Set(sequence.map((s) => s.term))];
    const asked = new Set(terms);
    for (let i = 0; i + 1 < sequence.length; i++) {
      const joined = this.tokenizer.termOf(`${sequence[i]?.term}${sequence[i + 1]?.surface}`);
      if (joined !== '' && this.postings.has(joined)) asked.add(joined);
    }
    let weight = 0;
    for (const term of terms) weight += this.idf(term);
    const scores = new Map<number, number>();
    for (const term of asked) {
      const idf = this.idf(term);
      for (const n of this.postings.get(term) ?? []) {
        const page = this.pages[n] as PageTerms;
        const links = page.anchors.get(term) ?? 0;
        const field = page.title.has(term) ? 1 : ANCHOR_FIELD_WEIGHT * (links / (links + 1));
        scores.set(n, (scores.get(n) ?? 0) + idf * field);
      }
    }
    const out: PageFieldMatch[] = [];
    for (const [n, raw] of scores) {
      const page = this.pages[n] as PageTerms;
      const score = weight > 0 ? Math.min(1, raw / weight) : 0;
      const named = page.titleWords.length > 0 && page.titleWords.every((w) => asked.has(w));
      // a title of one word names less than one of several (`render` vs `hookTimeout`): half as much
      const titleNamed = named
        ? this.specificity(page.titleWords) * (page.titleWords.length > 1 ? 1 : ONE_WORD_TITLE)
        : 0;
      if (score < minScore && titleNamed === 0) continue;
      out.push({ url: page.url, title: page.name, score, titleNamed });
    }
    out.sort((a, b) => b.titleNamed + b.score - (a.titleNamed + a.score) || (a.url < b.url ? -1 : 1));
    return out.slice(0, limit);
  }

  /** How few pages' fields hold every one of `words`: the idf of their conjunction over the largest idf, 0..1. */
  private specificity(words: readonly string[]): number {
    const lists = words.map((w) => this.postings.get(w) ?? []).sort((a, b) => a.length - b.length);
    let common = new Set(lists[0] ?? []);
    for (const list of lists.slice(1)) {
      const next = new Set<number>();
      for (const n of list) if (common.has(n)) next.add(n);
      common = next;
    }
    const total = this.pages.length;
    const most = Math.log(1 + (total + 0.5) / 1.5);
    return most > 0 ? Math.log(1 + (total + 0.5) / (common.size + 0.5)) / most : 0;
  }

  /** The terms the corpus relates to `term` (see {@link PageFieldIndex}), most related first. */
  related(term: string): readonly string[] {
    return this.relatedTerms.get(term) ?? [];
  }

  /** Every related pair kept (for tests and measuring). */
  get relatedCount(): number {
    let n = 0;
    for (const list of this.relatedTerms.values()) n += list.length;
    return n;
  }

  /**
   * Pairs a word of the texts a page is linked with to a word of its title when the title lacks it, counted over
   * pages; a pair two pages or more make is kept, scored by how often the two words go together against how
   * common each is, at most {@link MAX_RELATED_PER_TERM} per term and {@link MAX_RELATED_TERMS} in all.
   */
  private mineRelated(): void {
    const pairs = new Map<string, number>();
    for (const page of this.pages) {
      const titleOnly = page.titleWords.filter((t) => !page.anchors.has(t));
      if (titleOnly.length === 0 || titleOnly.length > 4) continue;
      for (const a of page.anchors.keys()) {
        if (page.title.has(a)) continue;
        for (const t of titleOnly) {
          const key = `${a}\u0000${t}`;
          pairs.set(key, (pairs.get(key) ?? 0) + 1);
        }
      }
    }
    const scored: { a: string; t: string; score: number }[] = [];
    for (const [key, n] of pairs) {
      if (n < 2) continue;
      const [a, t] = key.split('\u0000') as [string, string];
      const df = (term: string) => this.postings.get(term)?.length ?? 1;
      scored.push({ a, t, score: n / Math.sqrt(df(a) * df(t)) });
    }
    scored.sort((x, y) => y.score - x.score || (x.a + x.t < y.a + y.t ? -1 : 1));
    let kept = 0;
    const add = (from: string, to: string) => {
      const list = this.relatedTerms.get(from) ?? [];
      if (list.length >= MAX_RELATED_PER_TERM || list.includes(to)) return false;
      list.push(to);
      this.relatedTerms.set(from, list);
      return true;
    };
    for (const { a, t } of scored) {
      if (kept >= MAX_RELATED_TERMS) break;
      if (add(a, t)) kept++;
      if (kept < MAX_RELATED_TERMS && add(t, a)) kept++;
    }
  }
}
