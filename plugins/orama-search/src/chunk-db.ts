import {
  type AnyOrama,
  components,
  count,
  create,
  type IDocumentsStore,
  type IIndex,
  insert,
  load,
  type RawData,
  type Results,
  save,
  search,
} from '@orama/orama';
import type { CodeTokenizer } from '@pro-context/search-kit';
import {
  allowedTypos,
  BM25_SHARE,
  englishSynonymGroups,
  MAX_TYPO_CANDIDATES,
  NUMERIC_TERM,
  SYNONYM_WEIGHT,
  synonymIndex,
  TypoVocabulary,
} from '@pro-context/search-kit';

/** The indexed fields of a chunk. */
export const chunkFields = ['title', 'section', 'headings', 'body'] as const;

/** One of {@link chunkFields}. */
export type ChunkField = (typeof chunkFields)[number];

const chunkSchema = { title: 'string', section: 'string', headings: 'string', body: 'string' } as const;

/** What is handed to Orama's `insert`: the id and the indexed text (which Orama does not keep). */
export interface ChunkDocument {
  id: string;
  title: string;
  /** The chunk's own (deepest) heading. */
  section: string;
  /** The headings between the page title and the chunk's own heading. */
  headings: string;
  body: string;
}

type OramaIndex = components.index.Index;

/** Orama's index data plus the written words of the index, for typo matching. */
interface ChunkIndexStore extends OramaIndex {
  vocabulary: TypoVocabulary;
}

/** The fields of Orama's radix tree nodes the search reads (trees/radix.js in @orama/orama 3.1.18). */
interface PostingNode {
  /** Children by first character of their edge label. */
  c: Map<string, PostingNode>;
  /** Edge label. */
  s: string;
  /** Whether a word ends here. */
  e: boolean;
  /** Internal ids of the documents containing the word. */
  d: Set<number>;
}

/** The node of `word` in a radix tree, if the word is in it. Orama's own `find` collects into arrays (slow). */
function findWord(root: PostingNode, word: string): PostingNode | undefined {
  let node = root;
  let i = 0;
  while (i < word.length) {
    const child = node.c.get(word[i]!);
    if (child === undefined || !word.startsWith(child.s, i)) return undefined;
    i += child.s.length;
    node = child;
  }
  return node.e ? node : undefined;
}

function ownNumber(record: Record<string, number> | undefined, key: string, fallback = 0): number {
  return record !== undefined && Object.hasOwn(record, key) ? (record[key] ?? fallback) : fallback;
}

/**
 * Orama's index component (its radix trees, term statistics and BM25), with three changes:
 * - `insert` counts term frequencies (Orama's default dedupes the tokens, so every term gets tf = 1/length,
 *   and it recounts each token over the whole token list: quadratic in the field length). Only counts
 *   above 1 are stored; a posting without a count means 1;
 * - `search` looks up whole terms only (Orama matches prefixes by default, so `model` would also score the
 *   rare, high-idf `model_validate_json`), applies typo tolerance only to query words the index does not
 *   contain, against written words rather than stems, also matches a query word's synonyms
 *   (`params` → `parameters`, see synonyms.ts), and ranks with OR semantics;
 * - `save`/`load` carry the written-word vocabulary typo matching needs.
 */
function createChunkIndex(tokenizer: CodeTokenizer): IIndex<OramaIndex> {
  const base = components.index.createIndex();
  const synonyms = synonymIndex(englishSynonymGroups, (word) => tokenizer.termOf(word));
  return {
    ...base,
    create(orama, sharedInternalDocumentStore, schema) {
      const store = base.create(orama, sharedInternalDocumentStore, schema) as ChunkIndexStore;
      // Null-prototype records: terms such as `constructor` or `__proto__` must not hit Object.prototype.
      for (const field of chunkFields) store.tokenOccurrences[field] = Object.create(null);
      store.vocabulary = new TypoVocabulary();
      return store;
    },
    insert(
      implementation,
      index,
      prop,
      id,
      internalId,
      value,
      schemaType,
      language,
      oramaTokenizer,
      docsCount,
      options,
    ) {
      const store = index as unknown as ChunkIndexStore;
      const tree = store.indexes[prop];
      if (tree?.type !== 'Radix' || typeof value !== 'string') {
        base.insert(
          implementation,
          index,
          prop,
          id,
          internalId,
          value,
          schemaType,
          language,
          oramaTokenizer,
          docsCount,
          options,
        );
        return;
      }
      const counts = new Map<string, number>();
      const vocabulary = store.vocabulary;
      const length = tokenizer.indexTerms(value, (surface, term) => {
        counts.set(term, (counts.get(term) ?? 0) + 1);
        vocabulary.add(surface, term);
      });
      store.avgFieldLength[prop] = ((store.avgFieldLength[prop] ?? 0) * (docsCount - 1) + length) / docsCount;
      store.fieldLengths[prop]![internalId] = length;
      // Only counts above 1 are stored (two thirds of all pairs occur once): the posting says the rest.
      // Numbers are left out too: as keys of a per-chunk record, `404` would allocate a 405-slot array.
      let frequencies: Record<string, number> | undefined;
      const occurrences = store.tokenOccurrences[prop]!;
      for (const [term, n] of counts) {
        if (n > 1 && !NUMERIC_TERM.test(term)) {
          frequencies ??= Object.create(null) as Record<string, number>;
          frequencies[term] = n;
        }
        occurrences[term] = ownNumber(occurrences, term) + 1;
        tree.node.insert(term, internalId);
      }
      if (frequencies !== undefined) store.frequencies[prop]![internalId] = frequencies;
    },
    search(index, term, _tokenizer, _language, propertiesToSearch, _exact, tolerance, boost, relevance, docsCount) {
      const store = index as ChunkIndexStore;
      const boosts = boost as Record<string, number | undefined>;
      // Dense accumulators by internal id (1..n): several times faster than a Map on common terms.
      const size = store.sharedInternalDocumentStore.internalIdToId.length + 1;
      const scores = new Float64Array(size);
      // Idf-weighted share of the query's terms each chunk contains (each query term counted once).
      const coverage = new Float64Array(size);
      const lastQueryTerm = new Int32Array(size);
      const termCoverage = new Float64Array(size);
      const matched: number[] = [];
      const { k, b, d } = relevance;
      const documentFrequency = (t: string) =>
        Math.max(0, ...propertiesToSearch.map((prop) => ownNumber(store.tokenOccurrences[prop], t)));
      const idfOf = (df: number) => Math.log(1 + (docsCount - df + 0.5) / (df + 0.5));
      let queryWeight = 0;
      let queryIndex = 0;
      for (const query of tokenizer.queryTerms(term)) {
        queryIndex += 1;
        let matches: { term: string; weight: number }[] = [{ term: query.term, weight: 1 }];
        const known = documentFrequency(query.term) > 0;
        if (!known) {
          const typos = allowedTypos(query.surface.length, tolerance);
          const byTerm = new Map<string, number>();
          for (const candidate of store.vocabulary.candidates(query.surface, typos, MAX_TYPO_CANDIDATES)) {
            // A typo match ranks below an exact one: weight 1/2 for one edit, 1/3 for two.
            const weight = 1 / (1 + candidate.distance);
            if ((byTerm.get(candidate.term) ?? 0) < weight) byTerm.set(candidate.term, weight);
          }
          matches = [...byTerm].map(([t, weight]) => ({ term: t, weight }));
        }
        // A chunk that says `parameters` or `environment` answers a query that says `params` or `env`.
        for (const alternative of synonyms.get(query.term) ?? []) {
          if (documentFrequency(alternative) > 0 && !matches.some((m) => m.term === alternative)) {
            matches.push({ term: alternative, weight: SYNONYM_WEIGHT });
          }
        }
        // The word's own rarity weighs it; an unknown word takes its best stand-in's, and with none at all
        // still counts in the query's weight: a chunk cannot cover it.
        const termIdf = known
          ? idfOf(documentFrequency(query.term))
          : matches.length > 0
            ? Math.max(...matches.map((m) => idfOf(documentFrequency(m.term))))
            : idfOf(0);
        queryWeight += termIdf;
        for (const prop of propertiesToSearch) {
          const tree = store.indexes[prop];
          if (tree?.type !== 'Radix') continue;
          const occurrences = store.tokenOccurrences[prop];
          const frequencies = store.frequencies[prop]!;
          const lengths = store.fieldLengths[prop]!;
          const avgLength = store.avgFieldLength[prop] ?? 0;
          const fieldBoost = boosts[prop] ?? 1;
          for (const match of matches) {
            const node = findWord(tree.node as unknown as PostingNode, match.term);
            if (node === undefined || avgLength <= 0) continue;
            // Orama's BM25 (components/algorithms.js), with tf the raw count of the term in the field:
            // idf * (d + tf * (k + 1)) / (tf + k * (1 - b + b * length / avgLength)).
            const matching = ownNumber(occurrences, match.term);
            const idf = Math.log(1 + (docsCount - matching + 0.5) / (matching + 0.5));
            const factor = idf * fieldBoost * match.weight;
            const lengthWeight = (k * b) / avgLength;
            const constant = k * (1 - b);
            const covered = termIdf * match.weight;
            for (const internalId of node.d) {
              const tf = ownNumber(frequencies[internalId], match.term, 1);
              const length = lengths[internalId] ?? 0;
              const score = (factor * (d + tf * (k + 1))) / (tf + constant + lengthWeight * length);
              if (scores[internalId] === 0) matched.push(internalId);
              scores[internalId]! += score;
              if (lastQueryTerm[internalId] !== queryIndex) {
                lastQueryTerm[internalId] = queryIndex;
                termCoverage[internalId] = covered;
                coverage[internalId]! += covered;
              } else if (termCoverage[internalId]! < covered) {
                // a better (exact rather than typo) match of the same query term in another field
                coverage[internalId]! += covered - termCoverage[internalId]!;
                termCoverage[internalId] = covered;
              }
            }
          }
        }
      }
      // The relevance model: coordination first (how much of the question a chunk speaks to, rare words
      // weighing more), BM25 (how strongly) to order chunks that cover the same share.
      let best = 0;
      for (const internalId of matched) best = Math.max(best, scores[internalId]!);
      const denominator = queryWeight > 0 ? queryWeight : 1;
      // Orama sorts the returned pairs (score, then internal id) itself.
      return matched.map((internalId): [number, number] => [
        internalId,
        coverage[internalId]! / denominator + (best > 0 ? (BM25_SHARE * scores[internalId]!) / best : 0),
      ]);
    },
    save(index) {
      const store = index as ChunkIndexStore;
      return { ...(base.save(index) as object), vocabulary: store.vocabulary.words() } as never;
    },
    load(sharedInternalDocumentStore, raw) {
      const store = base.load(sharedInternalDocumentStore, raw) as ChunkIndexStore;
      store.vocabulary = new TypoVocabulary();
      const words = (raw as { vocabulary?: unknown }).vocabulary;
      if (!Array.isArray(words)) throw new Error('snapshot has no vocabulary');
      for (const word of words) {
        if (typeof word === 'string') store.vocabulary.add(word, tokenizer.termOf(word));
      }
      return store;
    },
  };
}

interface IdOnlyDocumentsStore {
  docs: Record<number, object>;
  count: number;
}

// Stands in for every document: Orama needs to know a document exists, never what it said.
const PRESENT = Object.freeze({});

/**
 * A documents store that keeps no document. Orama's default store keeps the object passed to `insert`
 * (title, headings and the whole body) for as long as the index lives, and writes it into every snapshot.
 * Indexing reads the fields from the inserted object, not from the store, so dropping them is safe; what
 * stops working is only what reads stored documents back: `getByID`, `exact: true`, `remove`, `update`
 * (the backend never uses them: it rebuilds an index whole).
 */
function createIdOnlyDocumentsStore(): IDocumentsStore<IdOnlyDocumentsStore> {
  return {
    create: () => ({ docs: {}, count: 0 }),
    get: (store, id) => (typeof id === 'number' ? store.docs[id] : undefined),
    getMultiple: (store, ids) => ids.map((id) => (typeof id === 'number' ? store.docs[id] : undefined)),
    getAll: (store) => store.docs,
    store(store, _id, internalId) {
      if (store.docs[internalId] !== undefined) return false;
      store.docs[internalId] = PRESENT;
      store.count++;
      return true;
    },
    remove: () => false,
    count: (store) => store.count,
    load(_shared, raw) {
      const saved = raw as { count?: unknown };
      if (typeof saved.count !== 'number') throw new Error('snapshot has no document count');
      return { docs: {}, count: saved.count };
    },
    save: (store) => ({ count: store.count }) as never,
  };
}

/** An Orama database of chunks, always created by {@link createChunkDb} so restored data gets the same components. */
export type ChunkDb = AnyOrama;

/** Creates an empty chunk database using `tokenizer` for documents, queries and restored data alike. */
export function createChunkDb(tokenizer: CodeTokenizer): ChunkDb {
  return create({
    schema: chunkSchema,
    // The default sorter keeps every string field (the whole body) per document to sort by it.
    sort: { enabled: false },
    components: {
      tokenizer,
      index: createChunkIndex(tokenizer),
      documentsStore: createIdOnlyDocumentsStore(),
    },
  }) as unknown as ChunkDb;
}

/** Adds one chunk. Synchronous: every component is synchronous. */
export function insertChunk(db: ChunkDb, doc: ChunkDocument): void {
  void insert(db, doc);
}

/** Number of chunks in `db`. */
export function chunkCount(db: ChunkDb): number {
  return count(db);
}

/** Searches `db` (OR semantics, raw BM25 scores). */
export async function searchChunks(
  db: ChunkDb,
  term: string,
  limit: number,
  tolerance: number,
  boost: Record<ChunkField, number>,
): Promise<Results<unknown>> {
  return (await search(db, {
    term,
    properties: [...chunkFields],
    boost,
    tolerance,
    limit,
    // No `threshold`: the index's own search above always ranks with OR semantics.
  })) as Results<unknown>;
}

/** Orama's serialized form of `db`. */
export function saveChunkDb(db: ChunkDb): RawData {
  return save(db);
}

/** Loads `raw` into `db`, which must come from {@link createChunkDb}. */
export function loadChunkDb(db: ChunkDb, raw: RawData): void {
  load(db, raw);
}
