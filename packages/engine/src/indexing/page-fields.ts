import type { IndexKey, SearchBackend, SearchHit } from '@pro-context/kernel';
import { createCodeTokenizer, type PageFieldIndex as FieldIndex, PageFieldIndex } from '@pro-context/search-kit';
import { type PageKind, pageKind } from '../core/ranking/kinds.js';
import type { DocsMeta, LoadedDocs } from './docs-format.js';

/** Kinds of pages the fields never steer to: news of a change, whose answer is in a guide or reference page. */
const NEWS = new Set<PageKind>(['blog', 'release-notes', 'changelog']);

/** Pages whose fields steer a query's hits, at most. */
const STEERED_PAGES = 3;

/**
 * Weights of the page fields (issue #28 deliverable 3), as measured with `pnpm eval` (see the README):
 * - `title` (0.3): the share of the best hit's score a page gains when the query names every word of its title,
 *   times the title's specificity (an option page asked by its option's words: `hookTimeout`, "my hook times out");
 * - `related` (0.2): the weight of the search of the query's corpus-mined related terms, added to the hits' scores;
 * - `anchors` (0, off: measured, no gain): the share a page gains per unit of its field score (its title and the
 *   texts other pages link to it with naming the query).
 * `PRO_CONTEXT_PAGE_FIELDS` overrides them for measuring, e.g. `anchors:0.1,title:0.3,related:0` (0 turns one off).
 */
export const pageFieldWeights = parseWeights(process.env.PRO_CONTEXT_PAGE_FIELDS);

function parseWeights(text: string | undefined): { anchors: number; title: number; related: number } {
  const weights = { anchors: 0, title: 0.3, related: 0.2 };
  for (const part of (text ?? '').split(',')) {
    const [name, value] = part.split(':');
    const n = Number(value);
    if ((name === 'anchors' || name === 'title' || name === 'related') && Number.isFinite(n) && n >= 0 && n <= 1) {
      weights[name] = n;
    }
  }
  return weights;
}

let tokenizer: ReturnType<typeof createCodeTokenizer> | undefined;
const built = new WeakMap<DocsMeta, FieldIndex>();

/** The page fields of a docs record, built on first use from its page list and kept with the record. */
export function pageFields(record: DocsMeta): FieldIndex {
  let fields = built.get(record);
  if (!fields) {
    tokenizer ??= createCodeTokenizer('english');
    fields = new PageFieldIndex(tokenizer, record.pages);
    built.set(record, fields);
  }
  return fields;
}

/**
 * The backend's hits steered by the page fields: the hits of each page whose title and link texts name the query
 * gain a share of the best hit's score (all alike: its sections keep their order); a page with no hit among them enters with its first chunk at the last
 * hit's score plus that share (the backend ranked it below every hit). Reads the chunks of at most
 * {@link STEERED_PAGES} pages. With `related` on, the query's corpus-mined related terms are searched too and
 * their hits' scores, times that weight, added.
 */
export async function steerByPageFields(
  search: SearchBackend,
  key: IndexKey,
  hits: readonly SearchHit[],
  docs: Pick<LoadedDocs, 'record' | 'page'>,
  query: string,
  limit: number,
): Promise<SearchHit[]> {
  const { anchors, title, related } = pageFieldWeights;
  if (hits.length === 0 || (anchors === 0 && title === 0 && related === 0)) return [...hits];
  const fields = pageFields(docs.record);
  const out = hits.map((h) => ({ ...h }));
  const best = out[0]?.score ?? 0;
  const floor = out[out.length - 1]?.score ?? 0;
  if (related > 0) await addRelated(search, key, out, fields, query, limit, related);
  if (anchors === 0 && title === 0) return out.sort((a, b) => b.score - a.score);
  for (const match of fields.match(query, STEERED_PAGES)) {
    // a blog post or release notes named by the question ("announcing …") points to the guide that answers
    if (NEWS.has(pageKind(match.url, match.title))) continue;
    const bonus = best * (anchors * match.score + title * match.titleNamed);
    if (bonus <= 0) continue;
    // every hit of the page gains the same: a field of the page, its sections keep their order
    const prefix = `${match.url}#`;
    let found = false;
    for (const hit of out) {
      if (!hit.id.startsWith(prefix)) continue;
      hit.score += bonus;
      found = true;
    }
    if (found) continue;
    const first = (await docs.page(match.url))[0];
    if (first) out.push({ id: first.id, score: floor + bonus });
  }
  return out.sort((a, b) => b.score - a.score);
}

/** Searches the query's related terms (none of its own) and adds their hits' scores times `weight`. */
async function addRelated(
  search: SearchBackend,
  key: IndexKey,
  out: SearchHit[],
  fields: FieldIndex,
  query: string,
  limit: number,
  weight: number,
): Promise<void> {
  tokenizer ??= createCodeTokenizer('english');
  const own = new Set(tokenizer.queryTerms(query).map((q) => q.term));
  const extra = new Set<string>();
  for (const term of own) for (const r of fields.related(term)) if (!own.has(r)) extra.add(r);
  if (extra.size === 0) return;
  const { hits } = await search.search(key, [...extra].join(' '), { limit });
  const byId = new Map(out.map((h) => [h.id, h]));
  for (const h of hits) {
    const known = byId.get(h.id);
    if (known) known.score += weight * h.score;
    else out.push({ id: h.id, score: weight * h.score });
  }
}
