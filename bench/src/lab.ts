/**
 * Ranking laboratory (not part of CI): re-implements the search backend's relevance model over every chunk
 * of the eval libraries, in process, with every knob exposed (see `Params`), and scores each variant on
 * all eval metrics (search hit@1/hit@5/MRR and get-docs answer-bearing at 5000/2000/1000 tokens, through
 * a copy of the engine's budget filling), on odd and even question ids separately, so weights can be
 * chosen on one half and checked on the other. `base` reproduces the backend exactly (`--backend` runs
 * the real backend through the same metrics to check that).
 *
 * Usage: node dist/lab.js [--variants=a,b] [--cfg='{"bm25Share":0.4}' [--cfg2='{...}']]
 *          [--grid='{"ownCover":[0,0.1],"bm25Share":[0.3,0.5]}'] [--fill='{"dedupe":true,"propagate":true,"siblingShare":0.95}']
 *          [--show=<variant> [--ab]] [--diff=a,b] [--explain=<id,id> [--variant=<name>]] [--dump=file.json]
 *          [--backend] [--engine]   (--engine: the engine's own get-docs/search-docs, i.e. the eval, with halves)
 *          [--shared-only]   (the shared FastAPI/Pydantic questions alone, without bench/eval's own)
 */
import { chunkUrl, cutAtBoundary, docsEngineToken, type StoredChunk, sectionPath } from '@pro-context/engine';
import { estimateTokens, searchBackendToken } from '@pro-context/kernel';
import { createSilentLogger } from '@pro-context/logging';
import { createCodeTokenizer, englishSynonymGroups } from '@pro-context/plugin-orama-search';
import { startProContext } from 'pro-context';
import { findPhrase, isHit } from './lib/quality.js';
import { type EvalRow, loadEvalRows, makeProject, startWeb } from './lib/setup.js';

const tokenizer = createCodeTokenizer('english');
type Field = 'title' | 'section' | 'headings' | 'body';
const FIELDS: Field[] = ['title', 'section', 'headings', 'body'];

interface FieldData {
  tf: Map<string, number>;
  len: number;
  seq: string[];
}
interface Doc {
  chunk: StoredChunk;
  f: Record<Field, FieldData>;
  /** Prose words (outside code), for "thin chunk" signals. */
  prose: number;
  /** Terms of the body outside fenced code. */
  proseTerms: Set<string>;
}
interface Lib {
  docs: Doc[];
  postings: Map<string, number[]>;
  /** Max over fields of the field's document frequency (what the backend uses). */
  df: Map<string, number>;
  fieldDf: Record<Field, Map<string, number>>;
  avgLen: Record<Field, number>;
  vocab: Map<string, string>;
  byLen: Map<number, string[]>;
  /** Indices of the chunks of the same section (same page and heading path), itself included. */
  siblings: number[][];
  /** Number of pages containing each term. */
  pageDf: Map<string, number>;
  pages: number;
}

function splitHeadings(title: string, headings: readonly string[]) {
  const path = headings[0] === title ? headings.slice(1) : [...headings];
  const section = path.length > 0 ? (path[path.length - 1] as string) : '';
  return { section, headings: path.slice(0, -1).join('\n') };
}

function analyze(text: string, vocab?: Map<string, string>): FieldData {
  const tf = new Map<string, number>();
  const seq: string[] = [];
  const len = tokenizer.indexTerms(text, (surface, term) => {
    tf.set(term, (tf.get(term) ?? 0) + 1);
    seq.push(term);
    if (vocab && surface.length >= 4 && !vocab.has(surface)) vocab.set(surface, term);
  });
  return { tf, len, seq };
}

function buildLib(chunks: Iterable<StoredChunk>): Lib {
  const docs: Doc[] = [];
  const vocab = new Map<string, string>();
  for (const chunk of chunks) {
    const { section, headings } = splitHeadings(chunk.pageTitle, chunk.headings);
    const f = {
      title: analyze(chunk.pageTitle, vocab),
      section: analyze(section, vocab),
      headings: analyze(headings, vocab),
      body: analyze(chunk.body, vocab),
    };
    const prose = (
      chunk.body
        .replace(/```[\s\S]*?```/g, ' ')
        .replace(/^#.*$/gm, ' ')
        .match(/[A-Za-z]{2,}/g) ?? []
    ).length;
    const proseTerms = new Set(analyze(chunk.body.replace(/```[\s\S]*?```/g, ' ')).tf.keys());
    docs.push({ chunk, f, prose, proseTerms });
  }
  const postings = new Map<string, number[]>();
  const fieldDf = { title: new Map(), section: new Map(), headings: new Map(), body: new Map() } as Record<
    Field,
    Map<string, number>
  >;
  const avgLen = { title: 0, section: 0, headings: 0, body: 0 };
  docs.forEach((d, i) => {
    const seen = new Set<string>();
    for (const field of FIELDS) {
      avgLen[field] += d.f[field].len / docs.length;
      for (const t of d.f[field].tf.keys()) {
        fieldDf[field].set(t, (fieldDf[field].get(t) ?? 0) + 1);
        if (!seen.has(t)) {
          seen.add(t);
          const p = postings.get(t) ?? [];
          postings.set(t, p);
          p.push(i);
        }
      }
    }
  });
  const df = new Map<string, number>();
  for (const field of FIELDS) for (const [t, n] of fieldDf[field]) df.set(t, Math.max(df.get(t) ?? 0, n));
  const byLen = new Map<number, string[]>();
  for (const w of vocab.keys()) {
    const b = byLen.get(w.length) ?? [];
    byLen.set(w.length, b);
    b.push(w);
  }
  const bySection = new Map<string, number[]>();
  docs.forEach((d, i) => {
    const k = `${d.chunk.url}\u0000${d.chunk.headings.join('\u0001')}`;
    const list = bySection.get(k);
    if (list) list.push(i);
    else bySection.set(k, [i]);
  });
  const siblings = docs.map((d) => bySection.get(`${d.chunk.url}\u0000${d.chunk.headings.join('\u0001')}`)!);
  const pageDf = new Map<string, number>();
  for (const [t, list] of postings) pageDf.set(t, new Set(list.map((i) => docs[i]!.chunk.url)).size);
  const pages = new Set(docs.map((d) => d.chunk.url)).size;
  return { docs, postings, df, fieldDf, avgLen, vocab, byLen, siblings, pageDf, pages };
}

function osa(a: string, b: string, max: number): number {
  const n = a.length;
  const m = b.length;
  if (Math.abs(n - m) > max) return max + 1;
  const d: number[][] = Array.from({ length: n + 1 }, (_, i) =>
    Array.from({ length: m + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= n; i++)
    for (let j = 1; j <= m; j++) {
      const c = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + c);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  return d[n]![m]!;
}

/** Knobs of the relevance model. */
export interface Params {
  k: number;
  b: number;
  d: number;
  boost: Record<Field, number>;
  bm25Share: number;
  /** Coverage weights per field: a query term covered in this field counts this much (max over fields). */
  cover: Record<Field, number>;
  /** Bonus: idf-weighted share of the query in the chunk's own heading. */
  ownCover: number;
  /** Bonus: idf-weighted share of the own heading's terms that the query contains. */
  headPrecision: number;
  /** Bonus for query bigrams adjacent in the heading path or body (idf-weighted share of bigrams). */
  proximity: number;
  proximityWindow: number;
  /** Penalty for chunks with fewer prose words than thinWords. */
  thin: number;
  thinWords: number;
  /** Typo match weight = 1/(1+distance) times this. */
  typoWeight: number;
  /** Query-term idf exponent in coverage. */
  idfPow: number;
  /** Whole words and their parts count as one query concept. */
  group: boolean;
  /** Share of a group covered when only its parts (all of them) are present. */
  partShare: number;
  /** Drop the library's own name from queries. */
  dropLibraryName: boolean;
  /** Coverage of a term found in the body only inside code blocks. */
  codeShare: number;
  /** Cap on the idf of a plain English word (not an identifier) in coverage. */
  plainIdfCap: number;
  /** Fields in which the proximity bonus looks for adjacent query terms. */
  proximityFields: Field[];
  /** Weight of the best window's coverage. */
  window: number;
  windowSize: number;
  windowTitle: boolean;
  weakWeight: number;
  notes: number;
  synonyms: number;
  sectionUnion: number;
  /** Blend of page-level idf into the coverage weights (0 = chunk idf only). */
  pageIdf: number;
  /** Weight multiplier of code-like query words. */
  codeWeight: number;
  /** BM25F (one saturation over the field-weighted term frequency) instead of a sum of per-field BM25. */
  bm25f: boolean;
  /** The window is the start of the body only. */
  windowLead: boolean;
}

const BASE: Params = {
  k: 1.2,
  b: 0.75,
  d: 0.5,
  boost: { title: 1, section: 1, headings: 1, body: 1 },
  bm25Share: 0.3,
  cover: { title: 1, section: 1, headings: 1, body: 1 },
  ownCover: 0,
  headPrecision: 0,
  proximity: 0,
  proximityWindow: 1,
  thin: 0,
  thinWords: 20,
  typoWeight: 1,
  idfPow: 1,
  group: false,
  partShare: 1,
  dropLibraryName: false,
  codeShare: 1,
  plainIdfCap: Infinity,
  proximityFields: ['title', 'section', 'headings', 'body'],
  window: 0,
  windowSize: 30,
  windowTitle: true,
  weakWeight: 1,
  notes: 0,
  synonyms: 0,
  sectionUnion: 0,
  pageIdf: 0,
  codeWeight: 1,
  bm25f: false,
  windowLead: false,
};

const variants: Record<string, Partial<Params>> = {
  base: {},
  win1: { window: 0.1 },
  win2: { window: 0.2 },
  win3: { window: 0.3 },
  win5: { window: 0.5 },
  win2s15: { window: 0.2, windowSize: 15 },
  win2s50: { window: 0.2, windowSize: 50 },
  win3s15: { window: 0.3, windowSize: 15 },
  pow5: { idfPow: 0.5 },
  pow75: { idfPow: 0.75 },
  cap4: { plainIdfCap: 4 },
  cap5: { plainIdfCap: 5 },
  cap6: { plainIdfCap: 6 },
  hprox1: { proximity: 0.1, proximityFields: ['section'] },
  hprox2: { proximity: 0.2, proximityFields: ['section'] },
  hprox2t: { proximity: 0.2, proximityFields: ['section', 'title'] },
  code8: { codeShare: 0.8 },
  code6: { codeShare: 0.6 },
  libHp1: { dropLibraryName: true, headPrecision: 0.1 },
  libHp2: { dropLibraryName: true, headPrecision: 0.2 },
  libHp1Own1: { dropLibraryName: true, headPrecision: 0.1, ownCover: 0.1 },
  libHp2Own2: { dropLibraryName: true, headPrecision: 0.2, ownCover: 0.2 },
  libHp1C8: { dropLibraryName: true, headPrecision: 0.1, codeShare: 0.8 },
  grp: { group: true },
  grp8: { group: true, partShare: 0.8 },
  grp6: { group: true, partShare: 0.6 },
  lib: { dropLibraryName: true },
  grpLib: { group: true, dropLibraryName: true },
  grp8Lib: { group: true, partShare: 0.8, dropLibraryName: true },
  share5: { bm25Share: 0.5 },
  share2: { bm25Share: 0.2 },
  own1: { ownCover: 0.1 },
  own2: { ownCover: 0.2 },
  hp1: { headPrecision: 0.1 },
  hp2: { headPrecision: 0.2 },
  prox1: { proximity: 0.1 },
  prox2: { proximity: 0.2 },
  prox2w3: { proximity: 0.2, proximityWindow: 3 },
  thin1: { thin: 0.1 },
  coverTitleHalf: { cover: { title: 0.5, section: 1, headings: 1, body: 1 } },
  coverHeadHalf: { cover: { title: 0.5, section: 1, headings: 0.5, body: 1 } },
  boostSec2: { boost: { title: 1, section: 2, headings: 1, body: 1 } },
  idf15: { idfPow: 1.5 },
  idf2: { idfPow: 2 },
};

interface Scored {
  doc: Doc;
  score: number;
}

const WEAK = new Set(
  'still just really actually also even instead like e.g i.e etc way ways want wants wanted need needs needed make makes making keep keeps possible able properly correctly correct right best good better simple simply easy easily one ones something anything thing things currently already another again specific certain different every everything kind sort lot lots whole'.split(
    ' ',
  ),
);
/** The backend's own groups of interchangeable words (abbreviations and a few synonyms). */
const SYNONYM_GROUPS = englishSynonymGroups;
const SYN = new Map<string, Set<string>>();
for (const group of SYNONYM_GROUPS) {
  const terms = group.map((w) => tokenizer.queryTerms(w)[0]?.term).filter((t): t is string => t !== undefined);
  for (const t of terms) {
    const set = SYN.get(t) ?? new Set<string>();
    SYN.set(t, set);
    for (const u of terms) if (u !== t) set.add(u);
  }
}
const NOTES = /\b(release notes|changelog|change log|what's new)\b/i;
const WORD_RE = /[\p{L}\p{N}_]+(?:[.-][\p{L}\p{N}_]+)*/gu;
interface Group {
  word: string;
  /** Looks like code: an identifier, a class name, an acronym. */
  code: boolean;
  terms: { term: string; surface: string }[];
}
/** Query words, each with its indexed terms (the whole word first, then its parts). */
function queryGroups(query: string, p: Params, libNames: string[]): Group[] {
  const cleaned = query.replace(/\]\([^)\s]*(?:\s+"[^"]*")?\)/g, ']').replace(/\bhttps?:\/\/[^\s)>\]]+/g, ' ');
  let groups: Group[] = [];
  const seen = new Set<string>();
  let first = true;
  for (const m of cleaned.matchAll(WORD_RE)) {
    const word = m[0];
    const before = cleaned.slice(0, m.index);
    const sentenceStart = first || /[.!?]\s*$/.test(before);
    first = false;
    const code =
      /[_.]/.test(word) ||
      /[a-z][A-Z]/.test(word) ||
      /^[A-Z]{2,}[a-z]*$/.test(word) ||
      (/^[A-Z]/.test(word) && !sentenceStart) ||
      /[@`(]$/.test(before) ||
      /^[`(]/.test(cleaned.slice(m.index + word.length));
    const terms = tokenizer.queryTerms(word);
    if (terms.length === 0) continue;
    const key = terms.map((t) => t.term).join(' ');
    if (seen.has(key)) continue;
    seen.add(key);
    groups.push({ word: word.toLowerCase(), terms, code });
  }
  if (p.dropLibraryName) {
    const kept = groups.filter((g) => !libNames.includes(g.word));
    if (kept.length > 0) groups = kept;
  }
  if (!p.group) {
    // every distinct term is its own group (the backend's model)
    const out: Group[] = [];
    const ts = new Set<string>();
    for (const g of groups)
      for (const t of g.terms)
        if (!ts.has(t.term)) {
          ts.add(t.term);
          out.push({ word: t.surface, terms: [t], code: g.code });
        }
    return out;
  }
  return groups;
}

function search(lib: Lib, query: string, p: Params, limit: number, libNames: string[] = []): Scored[] {
  const n = lib.docs.length;
  const scores = new Float64Array(n);
  const cover = new Float64Array(n);
  const own = new Float64Array(n);
  const touched = new Set<number>();
  const idfOf = (df: number) => Math.log(1 + (n - df + 0.5) / (df + 0.5));
  const pageIdfOf = (df: number) => Math.log(1 + (lib.pages - df + 0.5) / (df + 0.5));
  const groups = queryGroups(query, p, libNames);
  const qterms = groups.flatMap((g) => g.terms);
  let qWeight = 0;
  const qSet = new Map<string, number>();
  // presence of each distinct term per doc (max over typo matches and fields)
  const presence = new Map<string, Map<number, number>>();
  const ownPresence = new Map<string, Map<number, number>>();
  const termIdf = new Map<string, number>();
  for (const q of qterms) {
    if (presence.has(q.term)) continue;
    let matches: { term: string; w: number }[] = [{ term: q.term, w: 1 }];
    if (!lib.df.has(q.term)) {
      const typos = q.surface.length < 5 ? 0 : 1;
      const by = new Map<string, number>();
      if (typos > 0)
        for (let L = q.surface.length - typos; L <= q.surface.length + typos; L++)
          for (const w of lib.byLen.get(L) ?? []) {
            const dist = osa(q.surface, w, typos);
            if (dist > 0 && dist <= typos) {
              const t = lib.vocab.get(w)!;
              const wt = (p.typoWeight * 1) / (1 + dist);
              if ((by.get(t) ?? 0) < wt) by.set(t, wt);
            }
          }
      matches = [...by].map(([term, w]) => ({ term, w }));
    }
    if (p.synonyms > 0)
      for (const alt of SYN.get(q.term) ?? []) if (lib.df.has(alt)) matches.push({ term: alt, w: p.synonyms });
    const known = matches.filter((m) => m.w === 1 && lib.df.has(m.term));
    const covIdf = (t: string) =>
      p.pageIdf > 0
        ? (1 - p.pageIdf) * idfOf(lib.df.get(t) ?? 0) + p.pageIdf * pageIdfOf(lib.pageDf.get(t) ?? 0)
        : idfOf(lib.df.get(t) ?? 0);
    const tIdf =
      known.length > 0
        ? covIdf(q.term)
        : matches.length > 0
          ? Math.max(...matches.map((m) => covIdf(m.term)))
          : covIdf('\u0000');
    termIdf.set(q.term, tIdf);
    for (const m of matches) qSet.set(m.term, Math.max(qSet.get(m.term) ?? 0, m.w));
    const pres = new Map<number, number>();
    const ownPres = new Map<number, number>();
    presence.set(q.term, pres);
    ownPresence.set(q.term, ownPres);
    for (const m of matches) {
      const fidf = Object.fromEntries(FIELDS.map((f) => [f, idfOf(lib.fieldDf[f].get(m.term) ?? 0)])) as Record<
        Field,
        number
      >;
      for (const i of lib.postings.get(m.term) ?? []) {
        const doc = lib.docs[i]!;
        touched.add(i);
        let pseudoTf = 0;
        for (const field of FIELDS) {
          const tf = doc.f[field].tf.get(m.term);
          if (!tf) continue;
          const avg = lib.avgLen[field];
          if (p.bm25f) pseudoTf += (p.boost[field] * tf) / (1 - p.b + (p.b * doc.f[field].len) / avg);
          else
            scores[i]! +=
              (fidf[field] * p.boost[field] * m.w * (p.d + tf * (p.k + 1))) /
              (tf + p.k * (1 - p.b + (p.b * doc.f[field].len) / avg));
          const c = m.w * p.cover[field] * (field === 'body' && !doc.proseTerms.has(m.term) ? p.codeShare : 1);
          if ((pres.get(i) ?? 0) < c) pres.set(i, c);
          if (field === 'section' && (ownPres.get(i) ?? 0) < m.w) ownPres.set(i, m.w);
        }
        if (p.bm25f && pseudoTf > 0)
          scores[i]! += (idfOf(lib.df.get(m.term) ?? 0) * m.w * (pseudoTf * (p.k + 1))) / (pseudoTf + p.k);
      }
    }
  }
  if (p.sectionUnion > 0) {
    for (const pres of presence.values()) {
      for (const [i, v] of [...pres]) {
        for (const j of lib.siblings[i]!) {
          if (j === i) continue;
          touched.add(j);
          if ((pres.get(j) ?? 0) < v * p.sectionUnion) pres.set(j, v * p.sectionUnion);
        }
      }
    }
  }
  for (const g of groups) {
    const whole = g.terms[0]!;
    const parts = g.terms.slice(1);
    const plain = /^[a-z]+$/.test(whole.surface) && g.terms.length === 1;
    const weak = (WEAK.has(g.word) ? p.weakWeight : 1) * (g.code ? p.codeWeight : 1);
    const wq = weak * Math.min(termIdf.get(whole.term)!, plain ? p.plainIdfCap : Infinity) ** p.idfPow;
    qWeight += wq;
    const docs = new Set<number>();
    for (const t of g.terms) for (const i of presence.get(t.term)!.keys()) docs.add(i);
    let partDen = 0;
    for (const t of parts) partDen += termIdf.get(t.term)!;
    for (const i of docs) {
      let c = presence.get(whole.term)!.get(i) ?? 0;
      let o = ownPresence.get(whole.term)!.get(i) ?? 0;
      if (parts.length > 0 && partDen > 0) {
        let pc = 0;
        let po = 0;
        for (const t of parts) {
          pc += termIdf.get(t.term)! * (presence.get(t.term)!.get(i) ?? 0);
          po += termIdf.get(t.term)! * (ownPresence.get(t.term)!.get(i) ?? 0);
        }
        c = Math.max(c, (p.partShare * pc) / partDen);
        o = Math.max(o, (p.partShare * po) / partDen);
      }
      cover[i]! += wq * c;
      own[i]! += wq * o;
    }
  }
  const den = qWeight > 0 ? qWeight : 1;
  let maxBm = 0;
  for (const i of touched) maxBm = Math.max(maxBm, scores[i]!);
  // bigrams of consecutive query terms
  const qseq = qterms.map((q) => q.term);
  const out: Scored[] = [];
  for (const i of touched) {
    const doc = lib.docs[i]!;
    let s = cover[i]! / den + (maxBm > 0 ? (p.bm25Share * scores[i]!) / maxBm : 0);
    if (p.ownCover) s += (p.ownCover * own[i]!) / den;
    if (p.headPrecision) {
      let num = 0;
      let hd = 0;
      for (const t of doc.f.section.tf.keys()) {
        const w = idfOf(lib.df.get(t) ?? 0);
        hd += w;
        if (qSet.has(t)) num += w;
      }
      if (hd > 0) s += (p.headPrecision * num) / hd;
    }
    if (p.proximity && qseq.length > 1) {
      let num = 0;
      let pairs = 0;
      for (let j = 0; j + 1 < qseq.length; j++) {
        const a = qseq[j]!;
        const b = qseq[j + 1]!;
        const w = Math.min(idfOf(lib.df.get(a) ?? 0), idfOf(lib.df.get(b) ?? 0));
        pairs += w;
        let found = false;
        for (const field of p.proximityFields) {
          const seq = doc.f[field].seq;
          for (let x = 0; x < seq.length && !found; x++) {
            if (seq[x] !== a) continue;
            for (let y = Math.max(0, x - p.proximityWindow); y <= Math.min(seq.length - 1, x + p.proximityWindow); y++)
              if (y !== x && seq[y] === b) {
                found = true;
                break;
              }
          }
          if (found) break;
        }
        if (found) num += w;
      }
      if (pairs > 0) s += (p.proximity * num) / pairs;
    }
    if (p.thin && doc.prose < p.thinWords) s -= p.thin;
    if (p.notes && NOTES.test(doc.chunk.pageTitle)) s -= p.notes;
    if (p.window) {
      // best window of the body: idf-weighted share of query terms within `windowSize` consecutive terms,
      // with the heading path's terms always counted
      const headTerms = new Set<string>([
        ...doc.f.section.tf.keys(),
        ...doc.f.headings.tf.keys(),
        ...(p.windowTitle ? doc.f.title.tf.keys() : []),
      ]);
      const seq = doc.f.body.seq;
      const weightOf = (t: string) => termIdf.get(t) ?? 0;
      const inQuery = (t: string) => termIdf.has(t);
      let bestWin = 0;
      const counts = new Map<string, number>();
      let cur = 0;
      for (const t of headTerms) if (inQuery(t)) cur += weightOf(t);
      const base0 = cur;
      let winSum = 0;
      for (let x = 0; x < seq.length; x++) {
        const t = seq[x]!;
        if (inQuery(t) && !headTerms.has(t)) {
          const c = counts.get(t) ?? 0;
          if (c === 0) winSum += weightOf(t);
          counts.set(t, c + 1);
        }
        if (x >= p.windowSize) {
          const u = seq[x - p.windowSize]!;
          if (inQuery(u) && !headTerms.has(u)) {
            const c = counts.get(u)! - 1;
            counts.set(u, c);
            if (c === 0) winSum -= weightOf(u);
          }
        }
        if (!p.windowLead || x < p.windowSize) bestWin = Math.max(bestWin, winSum);
      }
      let totalQ = 0;
      for (const v of termIdf.values()) totalQ += v;
      s += (p.window * (base0 + bestWin)) / (totalQ || 1);
    }
    out.push({ doc, score: s });
  }
  out.sort((x, y) => y.score - x.score || x.doc.chunk.order - y.doc.chunk.order);
  return out.slice(0, limit);
}

// ---- get-docs simulation: variants of ranking.ts's fillBudget, to compare fill strategies ----
export function fillBudget(ranked: readonly StoredChunk[], maxTokens: number): string {
  const parts: string[] = [];
  let used = 0;
  let spent = 0;
  for (const chunk of ranked) {
    const label = `<!-- ${sectionPath(chunk)} — ${chunkUrl(chunk)} -->\n`;
    const cost = estimateTokens(label) + chunk.tokens + 1;
    if (spent + cost <= maxTokens) {
      parts.push(`${label}${chunk.body.trim()}`);
      used++;
      spent += cost;
    } else if (used === 0) {
      const cut = cutAtBoundary(chunk.body, maxTokens - estimateTokens(label) - 20);
      if (cut) {
        parts.push(`${label}${cut}\n\n[Section truncated]`);
        used++;
        spent = maxTokens;
      }
    }
    if (maxTokens - spent < 60) break;
  }
  return parts.join('\n\n---\n\n');
}

/** Section structure of a library's chunks, for section-aware budget filling. */
interface Structure {
  parts: Map<string, StoredChunk[]>;
  firstOf: Map<string, StoredChunk>;
}
const sectionKey = (c: StoredChunk) => `${c.url}\u0000${c.headings.join('\u0001')}`;
function structureOf(chunks: Iterable<StoredChunk>): Structure {
  const parts = new Map<string, StoredChunk[]>();
  for (const c of chunks) {
    const k = sectionKey(c);
    const list = parts.get(k) ?? [];
    parts.set(k, list);
    list.push(c);
  }
  const firstOf = new Map<string, StoredChunk>();
  for (const [k, list] of parts) {
    list.sort((a, b) => a.order - b.order);
    firstOf.set(k, list[0]!);
  }
  return { parts, firstOf };
}
export interface FillOptions {
  siblings: boolean;
  /** Largest parent introduction added before a subsection (tokens); 0 = none. */
  parent: number;
  dedupe: boolean;
  /** Emit each unit's chunks in document order. */
  docOrder: boolean;
  /** Instead of adding siblings/parents right away, give them a share of the chunk's score and re-rank. */
  propagate: boolean;
  siblingShare: number;
  parentShare: number;
  parentAdd: boolean;
  /** Only the parents of the first this many ranked chunks. */
  parentTop: number;
}
function propagate(scored: { chunk: StoredChunk; score: number }[], st: Structure, o: FillOptions): StoredChunk[] {
  const best = new Map<StoredChunk, number>();
  const bonus = new Map<StoredChunk, number>();
  const own = new Map(scored.map((x) => [x.chunk, x.score]));
  const put = (c: StoredChunk, v: number) => {
    if ((best.get(c) ?? -Infinity) < v) best.set(c, v);
  };
  for (const [rank, { chunk, score }] of scored.entries()) {
    put(chunk, score);
    if (o.siblingShare > 0) for (const s of st.parts.get(sectionKey(chunk)) ?? []) put(s, score * o.siblingShare);
    if (o.parentShare > 0 && chunk.headings.length > 1 && rank < o.parentTop) {
      const intro = st.firstOf.get(`${chunk.url}\u0000${chunk.headings.slice(0, -1).join('\u0001')}`);
      if (intro && intro.tokens <= o.parent) {
        if (o.parentAdd) bonus.set(intro, Math.max(bonus.get(intro) ?? 0, score * o.parentShare));
        else put(intro, score * o.parentShare);
      }
    }
  }
  for (const [c, b] of bonus) put(c, (own.get(c) ?? 0) + b);
  return [...best].sort((a, b) => b[1] - a[1]).map(([c]) => c);
}
const bodyKey = (c: StoredChunk) =>
  c.body
    .replace(/^#{1,6}\s.*$/gm, '')
    .replace(/\s+/g, ' ')
    .trim();
export function fillBudget2(ranked: readonly StoredChunk[], maxTokens: number, st: Structure, o: FillOptions): string {
  const units: StoredChunk[][] = [];
  const emitted = new Set<StoredChunk>();
  const bodies = new Set<string>();
  let spent = 0;
  const costOf = (c: StoredChunk) => estimateTokens(`<!-- ${sectionPath(c)} — ${chunkUrl(c)} -->\n`) + c.tokens + 1;
  const tryAdd = (c: StoredChunk, unit: StoredChunk[]) => {
    if (emitted.has(c)) return false;
    if (o.dedupe && bodies.has(bodyKey(c))) return false;
    const cost = costOf(c);
    if (spent + cost > maxTokens) return false;
    emitted.add(c);
    bodies.add(bodyKey(c));
    unit.push(c);
    spent += cost;
    return true;
  };
  let truncated: string | undefined;
  for (const c of ranked) {
    if (emitted.has(c)) continue;
    if (o.dedupe && bodies.has(bodyKey(c))) continue;
    const unit: StoredChunk[] = [];
    if (!tryAdd(c, unit)) {
      if (units.length === 0 && truncated === undefined) {
        const label = `<!-- ${sectionPath(c)} — ${chunkUrl(c)} -->\n`;
        const cut = cutAtBoundary(c.body, maxTokens - estimateTokens(label) - 20);
        if (cut) {
          truncated = `${label}${cut}\n\n[Section truncated]`;
          spent = maxTokens;
        }
      }
      if (maxTokens - spent < 60) break;
      continue;
    }
    if (o.siblings) for (const s of st.parts.get(sectionKey(c)) ?? []) tryAdd(s, unit);
    if (o.parent > 0 && c.headings.length > 1) {
      const parentKey = `${c.url}\u0000${c.headings.slice(0, -1).join('\u0001')}`;
      const intro = st.firstOf.get(parentKey);
      if (intro && intro.tokens <= o.parent) tryAdd(intro, unit);
    }
    if (o.docOrder) unit.sort((a, b) => (a.url === b.url ? a.order - b.order : 0));
    units.push(unit);
    if (maxTokens - spent < 60) break;
  }
  const parts = units.flat().map((c) => `<!-- ${sectionPath(c)} — ${chunkUrl(c)} -->\n${c.body.trim()}`);
  if (truncated) parts.unshift(truncated);
  return parts.join('\n\n---\n\n');
}

interface Outcome {
  row: EvalRow;
  rank: number;
  ab: Record<number, boolean>;
}
const BUDGETS = [5000, 2000, 1000];

function summarize(outs: Outcome[]) {
  const n = outs.length || 1;
  const pc = (x: number) => `${((x / n) * 100).toFixed(1)}`.padStart(5);
  return `ab ${BUDGETS.map((b) => pc(outs.filter((o) => o.ab[b]).length)).join('/')}  h1 ${pc(outs.filter((o) => o.rank === 1).length)}  h5 ${pc(
    outs.filter((o) => o.rank >= 1 && o.rank <= 5).length,
  )}  mrr ${(outs.reduce((s, o) => s + (o.rank > 0 ? 1 / o.rank : 0), 0) / n).toFixed(3)}`;
}

async function main() {
  // every eval question (the shared ones and bench/eval's own); --shared-only: FastAPI and Pydantic alone
  const dev = !process.argv.includes('--shared-only');
  const rows = loadEvalRows({ dev });
  const web = await startWeb({ dev });
  const project = makeProject(web);
  const kernel = await startProContext({ configFile: project.configFile, logger: createSilentLogger(), env: {} });
  const engine = kernel.resolve(docsEngineToken);
  const backend = kernel.resolve(searchBackendToken);
  const libs = new Map<string, { lib: Lib; key: unknown; chunks: Map<string, StoredChunk> }>();
  for (const id of new Set(rows.map((r) => r.library))) {
    const loaded = await engine.loadDocs(id, 'latest');
    const chunks = new Map((await loaded.docs.all()).map((c) => [c.id, c]));
    libs.set(id, { lib: buildLib(chunks.values()), key: loaded.docs.key, chunks });
  }
  const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const extra = arg('cfg');
  if (extra) variants.cfg = JSON.parse(extra) as Partial<Params>;
  const extra2 = arg('cfg2');
  if (extra2) variants.cfg2 = { ...(extra ? JSON.parse(extra) : {}), ...JSON.parse(extra2) } as Partial<Params>;
  const grid = arg('grid');
  if (grid) {
    // --grid='{"ownCover":[0,0.1],"headPrecision":[0,0.2]}' with --cfg as the base
    const axes = Object.entries(JSON.parse(grid) as Record<string, unknown[]>);
    const base0 = extra ? (JSON.parse(extra) as Partial<Params>) : {};
    let combos: Partial<Params>[] = [base0];
    for (const [k, values] of axes) combos = combos.flatMap((c) => values.map((v) => ({ ...c, [k]: v })));
    for (const c of combos)
      variants[axes.map(([k]) => `${k.slice(0, 6)}=${JSON.stringify((c as Record<string, unknown>)[k])}`).join(' ')] =
        c;
  }
  const names =
    arg('variants')?.split(',') ??
    (grid ? Object.keys(variants).filter((k) => k.includes('=')) : Object.keys(variants));
  const show = arg('show');
  const results = new Map<string, Outcome[]>();
  const structures = new Map([...libs].map(([id, l]) => [id, structureOf(l.chunks.values())]));
  const fillArg = arg('fill');
  const fill: FillOptions | undefined = fillArg
    ? {
        siblings: false,
        parent: 0,
        dedupe: false,
        docOrder: false,
        propagate: false,
        siblingShare: 0,
        parentShare: 0,
        ...JSON.parse(fillArg),
      }
    : undefined;
  const evaluate = async (
    name: string,
    rankScored: (row: EvalRow) => Promise<{ chunk: StoredChunk; score: number }[]>,
  ) => {
    const outs: Outcome[] = [];
    const rankOf = async (row: EvalRow) => (await rankScored(row)).map((x) => x.chunk);
    for (const row of rows) {
      const scored = await rankScored(row);
      const ranked = scored.map((x) => x.chunk);
      const seen = new Set<string>();
      const results = ranked
        .filter((c) => {
          if (seen.has(chunkUrl(c))) return false;
          seen.add(chunkUrl(c));
          return true;
        })
        .slice(0, 10);
      const rank =
        results.findIndex((c) => isHit(row, { file: web.fileForUrl(c.url), headings: sectionPath(c).split(' › ') })) +
        1;
      const ab: Record<number, boolean> = {};
      const st = structures.get(row.library)!;
      for (const b of BUDGETS)
        ab[b] =
          findPhrase(
            fill
              ? fillBudget2(
                  fill.propagate ? propagate(scored.slice(0, 40), st, fill) : ranked.slice(0, 40),
                  b,
                  st,
                  fill,
                )
              : fillBudget(ranked.slice(0, 40), b),
            row.must_contain,
          ) >= 0;
      outs.push({ row, rank, ab });
      if (show === name && !ab[1000] && process.argv.includes('--ab')) {
        const all = await rankOf(row);
        const holders = [...libs.get(row.library)!.chunks.values()].filter(
          (c) => findPhrase(c.body, row.must_contain) >= 0,
        );
        console.log(
          `${row.id} rank=${rank} ab=${BUDGETS.map((b) => (ab[b] ? 1 : 0)).join('')} q=${row.question}  want=${row.heading}`,
        );
        console.log(
          `     top: ${all
            .slice(0, 4)
            .map((c) => `${c.tokens}t ${sectionPath(c).slice(-50)}`)
            .join(' | ')}`,
        );
        for (const h of holders)
          console.log(`     holder rank=${all.indexOf(h) + 1} ${h.tokens}t order=${h.order} ${sectionPath(h)}`);
      }
      if (show === name && (rank !== 1 || !ab[2000]) && !process.argv.includes('--ab')) {
        console.log(
          `${row.id} rank=${rank} ab=${BUDGETS.map((b) => (ab[b] ? 1 : 0)).join('')} q=${row.question}  want=${row.heading}`,
        );
        for (const c of results.slice(0, 3))
          console.log(`     ${sectionPath(c)} [${web.fileForUrl(c.url)}] ${c.tokens}t`);
      }
    }
    const odd = outs.filter((o) => Number(o.row.id.split('-').pop()) % 2 === 1);
    const even = outs.filter((o) => Number(o.row.id.split('-').pop()) % 2 === 0);
    results.set(name, outs);
    const dump = arg('dump');
    if (dump)
      (await import('node:fs')).writeFileSync(
        dump,
        JSON.stringify(outs.map((o) => ({ id: o.row.id, rank: o.rank, ab: o.ab }))),
      );
    console.log(
      `${name.padEnd(grid ? 40 : 14)} ALL ${summarize(outs)} | ODD ${summarize(odd)} | EVEN ${summarize(even)}`,
    );
  };
  const candidates = arg('candidates');
  if (candidates) {
    // Top-20 lexical candidates per question with their text, for rerankers tried outside this file.
    const v0 = variants[arg('variant') ?? 'base'] ?? {};
    const p: Params = { ...BASE, ...v0, boost: { ...BASE.boost, ...v0.boost }, cover: { ...BASE.cover, ...v0.cover } };
    const out = rows.map((row) => {
      const lib = libs.get(row.library)!.lib;
      const seen = new Set<string>();
      const top = search(lib, row.question, p, 100000, [row.library])
        .filter((s) => {
          const url = chunkUrl(s.doc.chunk);
          if (seen.has(url)) return false;
          seen.add(url);
          return true;
        })
        .slice(0, 20);
      return {
        id: row.id,
        question: row.question,
        candidates: top.map((s) => ({
          section: sectionPath(s.doc.chunk),
          body: s.doc.chunk.body,
          score: s.score,
          hit: isHit(row, { file: web.fileForUrl(s.doc.chunk.url), headings: sectionPath(s.doc.chunk).split(' › ') }),
        })),
      };
    });
    (await import('node:fs')).writeFileSync(candidates, JSON.stringify(out));
  }
  const explain = arg('explain');
  if (explain) {
    const v0 = variants[arg('variant') ?? 'base'] ?? {};
    const p: Params = { ...BASE, ...v0, boost: { ...BASE.boost, ...v0.boost }, cover: { ...BASE.cover, ...v0.cover } };
    for (const id of explain.split(',')) {
      const row = rows.find((r) => r.id === id)!;
      const lib = libs.get(row.library)!.lib;
      const n = lib.docs.length;
      const idfOf = (df: number) => Math.log(1 + (n - df + 0.5) / (df + 0.5));
      console.log(`\n== ${row.id}: ${row.question}\n   want ${row.file} # ${row.heading}  must: ${row.must_contain}`);
      console.log(
        `   terms: ${tokenizer
          .queryTerms(row.question)
          .map((q) => `${q.term}(${lib.df.get(q.term) ?? 0}:${idfOf(lib.df.get(q.term) ?? 0).toFixed(1)})`)
          .join(' ')}`,
      );
      const all = search(lib, row.question, p, 100000, [row.library]);
      all.forEach((s, i) => {
        const c = s.doc.chunk;
        const hit = isHit(row, { file: web.fileForUrl(c.url), headings: sectionPath(c).split(' › ') });
        if (i < 6 || hit) {
          const has = tokenizer
            .queryTerms(row.question)
            .map((q) => (FIELDS.some((f) => s.doc.f[f].tf.has(q.term)) ? q.term : '-'))
            .join(' ');
          console.log(
            `   ${hit ? '*' : ' '}${String(i + 1).padStart(4)} ${s.score.toFixed(3)} ${c.tokens}t ${sectionPath(c)}  [${has}]`,
          );
        }
      });
    }
  }
  if (process.argv.includes('--engine')) {
    // The engine's own get-docs and search-docs, in process: what the eval measures over stdio.
    const outs: Outcome[] = [];
    for (const row of rows) {
      const ab: Record<number, boolean> = {};
      for (const b of BUDGETS) {
        const answer = await engine.getDocs(row.library, row.question, undefined, b).catch(() => undefined);
        ab[b] = answer !== undefined && findPhrase(answer.content, row.must_contain) >= 0;
      }
      const found = await engine.search(row.library, row.question, undefined, 10);
      const rank =
        found.results.findIndex((r) => isHit(row, { file: web.fileForUrl(r.url), headings: r.section.split(' › ') })) +
        1;
      outs.push({ row, rank, ab });
    }
    const odd = outs.filter((o) => Number(o.row.id.split('-').pop()) % 2 === 1);
    const even = outs.filter((o) => Number(o.row.id.split('-').pop()) % 2 === 0);
    console.log(`${'engine'.padEnd(14)} ALL ${summarize(outs)} | ODD ${summarize(odd)} | EVEN ${summarize(even)}`);
  }
  if (process.argv.includes('--backend')) {
    await evaluate('backend', async (row) => {
      const l = libs.get(row.library)!;
      const { hits } = await backend.search(l.key as never, row.question, { limit: 40 });
      return hits.flatMap((h) => (l.chunks.has(h.id) ? [{ chunk: l.chunks.get(h.id)!, score: h.score }] : []));
    });
  }
  for (const name of names) {
    const v = variants[name];
    if (!v) continue;
    const p: Params = { ...BASE, ...v, boost: { ...BASE.boost, ...v.boost }, cover: { ...BASE.cover, ...v.cover } };
    await evaluate(name, async (row) =>
      search(libs.get(row.library)!.lib, row.question, p, 40, [row.library]).map((s) => ({
        chunk: s.doc.chunk,
        score: s.score,
      })),
    );
  }
  const diff = arg('diff');
  if (diff) {
    const [a, b] = diff.split(',');
    const ra = results.get(a!)!;
    const rb = results.get(b!)!;
    ra.forEach((o, i) => {
      const q = rb[i]!;
      const fa = `${o.rank} ${BUDGETS.map((x) => (o.ab[x] ? 1 : 0)).join('')}`;
      const fb = `${q.rank} ${BUDGETS.map((x) => (q.ab[x] ? 1 : 0)).join('')}`;
      if (fa !== fb)
        console.log(`  ${o.row.id.padEnd(12)} ${fa.padEnd(8)} -> ${fb.padEnd(8)} ${o.row.question.slice(0, 80)}`);
    });
  }
  await kernel.stop();
  await web.close();
  project.cleanup();
}

await main();
