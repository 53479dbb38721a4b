/**
 * Text analysis around SQLite's own `porter unicode61` tokenizer: what JavaScript adds before indexing
 * (camelCase parts, link targets removed) and how a user's query becomes an FTS5 expression that never
 * fails to parse.
 */

import { NonProseScanner } from '@pro-context/search-kit';

/** Bump when the analysis changes: indexes built with another one are not restored (see the registry). */
export const ANALYSIS = 'porter-unicode61-camel-joined-3';

/**
 * The FTS5 tokenizer. `unicode61` splits on everything but letters and digits, so `model_validator`,
 * `expect.poll` and `x-api-key` are indexed as their parts, and a query for the whole identifier is a
 * phrase of its parts (adjacent, in order). `porter` stems the English words; `remove_diacritics 2`
 * folds accents as the Orama tokenizer does.
 */
export const FTS5_TOKENIZER = 'porter unicode61 remove_diacritics 2';

// Markdown link targets and bare URLs (their path words would make every page that links somewhere match
// that somewhere's words; the Orama tokenizer drops them too) and MkDocs attribute lists
// (`## Title { #anchor .class }`), in one pass: one regex scanning the text once is twice as fast as three.
// What `/\]\([^)\s]*(?:\s+"[^"]*")?\)|\bhttps?:\/\/[^\s)>\]]+|\{\s*[#.][^}\n]*\}/g` matched (a link target becomes
// `]`, the rest a space), found in linear time: that regex was retried from every opener of a long run (issue #25).
const NOT_PROSE_OPENERS = /\]\(|\bhttps?:\/\/|\{/g;
const BARE_URL = /\bhttps?:\/\/[^\s)>\]]+/y;
export function withoutNonProse(text: string): string {
  const scan = new NonProseScanner(text);
  let out = '';
  let kept = 0;
  NOT_PROSE_OPENERS.lastIndex = 0;
  for (let m = NOT_PROSE_OPENERS.exec(text); m !== null; m = NOT_PROSE_OPENERS.exec(text)) {
    const i = m.index;
    let end = -1;
    if (text[i] === ']') end = scan.linkTargetEnd(i);
    else if (text[i] === '{') end = scan.attributeListEnd(i);
    else {
      BARE_URL.lastIndex = i;
      if (BARE_URL.test(text)) end = BARE_URL.lastIndex;
    }
    if (end < 0) {
      NOT_PROSE_OPENERS.lastIndex = i + 1;
      continue;
    }
    out += text.slice(kept, i) + (text[i] === ']' ? ']' : ' ');
    kept = end;
    NOT_PROSE_OPENERS.lastIndex = end;
  }
  return kept === 0 ? text : out + text.slice(kept);
}

// A lowercase-to-uppercase step inside a word (`setupFiles`, `BaseModel`, `APIRouter`). Finding the steps
// and then the word around each is several times faster than a regex for whole camelCase words.
const CAMEL_STEP = /[a-z0-9][A-Z]|[A-Z][A-Z][a-z]/g;
const CAMEL_SPLIT = /(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])/;

const isWordCode = (c: number): boolean =>
  (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c > 127;

/** `text` with every camelCase word followed by its parts. */
function addCamelParts(text: string): string {
  let out = '';
  let last = 0;
  CAMEL_STEP.lastIndex = 0;
  for (let m = CAMEL_STEP.exec(text); m !== null; m = CAMEL_STEP.exec(text)) {
    let start = m.index;
    while (start > last && isWordCode(text.charCodeAt(start - 1))) start--;
    let end = m.index + 1;
    while (end < text.length && isWordCode(text.charCodeAt(end))) end++;
    out += `${text.slice(last, end)} ${text.slice(start, end).split(CAMEL_SPLIT).join(' ')}`;
    last = end;
    CAMEL_STEP.lastIndex = end;
  }
  return last === 0 ? text : out + text.slice(last);
}

// A `_`, `.` or `-` between two letters or digits: inside an identifier (`field_validator`, `expect.poll`).
const JOIN_STEP = /[A-Za-z0-9][_.-][A-Za-z0-9]/g;
const SEPARATORS = /[_.-]/g;
const isIdentifierCode = (c: number): boolean => isWordCode(c) || c === 95 || c === 46 || c === 45;

/**
 * `text` with every identifier made of parts followed by its parts joined (`field_validator` →
 * `field_validator fieldvalidator`): unicode61 indexes the parts, the joined form stands for the identifier as a
 * whole, a word only identifiers produce, so a query for `field_validator` is not matched by prose that says
 * "field validator".
 */
function addJoinedIdentifiers(text: string): string {
  let out = '';
  let last = 0;
  JOIN_STEP.lastIndex = 0;
  for (let m = JOIN_STEP.exec(text); m !== null; m = JOIN_STEP.exec(text)) {
    let start = m.index;
    while (start > last && isIdentifierCode(text.charCodeAt(start - 1))) start--;
    let end = m.index + 3;
    while (end < text.length && isIdentifierCode(text.charCodeAt(end))) end++;
    while (end > m.index + 3 && !isWordCode(text.charCodeAt(end - 1))) end--;
    out += `${text.slice(last, end)} ${text.slice(start, end).replace(SEPARATORS, '')}`;
    last = end;
    JOIN_STEP.lastIndex = end;
  }
  return last === 0 ? text : out + text.slice(last);
}

/** The joined form of an identifier (see {@link addJoinedIdentifiers}), lowercased. */
export const joinedIdentifier = (word: string): string => word.replace(SEPARATORS, '').toLowerCase();

/**
 * Text as it is handed to FTS5: a camelCase word is followed by its parts (`setupFiles` →
 * `setupFiles setup Files`), so both `setupFiles` and `setup files` find it; link targets go.
 */
export function indexText(text: string): string {
  return addJoinedIdentifiers(addCamelParts(withoutNonProse(text)));
}

// Query words: letters, digits and `_`, optionally joined by `.` or `-`.
const QUERY_WORD = /[\p{L}\p{N}_]+(?:[.-][\p{L}\p{N}_]+)*/gu;
const PART_SEPARATOR = /[._-]+/;
const MAX_QUERY_TERMS = 32;

/** Words a question is made of that say nothing about the topic (they match nearly every chunk). */
const STOP_WORDS = new Set(
  (
    'a about above after again against all am an and any are as at be because been before being below ' +
    'between both but by can could did do does doing down during each few for from further had has have ' +
    'having he her here hers herself him himself his how i if in into is it its itself just me more most my ' +
    'myself no nor not of off on once only or other our ours ourselves out over own same she should so some ' +
    'such than that the their theirs them themselves then there these they this those through to too under ' +
    'until up very was we were what when where which while who whom why will with would you your yours ' +
    'yourself yourselves use using used get want need way'
  ).split(' '),
);

/** An FTS5 string literal: always a term or phrase, never an operator, whatever the text. */
export function ftsString(text: string): string {
  return `"${text.replaceAll('"', '""')}"`;
}

/**
 * The terms of a query: its words, lowercased, stop words and one-letter words left out; an identifier also
 * contributes its parts (`expect.poll` → `expect.poll`, `expect`, `poll`; `setupFiles` → `setupfiles`,
 * `setup`, `files`), as the index holds both. Each becomes one FTS5 string literal.
 */
export function queryTerms(query: string): string[] {
  const terms = new Set<string>();
  const add = (word: string) => {
    const lower = word.toLowerCase();
    if (lower.length < 2 || STOP_WORDS.has(lower)) return;
    terms.add(lower);
  };
  for (const word of query.match(QUERY_WORD) ?? []) {
    const parts = word.split(PART_SEPARATOR).filter(Boolean);
    add(parts.length > 1 ? joinedIdentifier(word) : word);
    if (parts.length > 1) for (const part of parts) add(part);
    for (const part of parts) {
      const camel = part.split(CAMEL_SPLIT);
      if (camel.length > 1) for (const piece of camel) add(piece);
    }
    if (terms.size >= MAX_QUERY_TERMS) break;
  }
  return [...terms].slice(0, MAX_QUERY_TERMS);
}

/**
 * The FTS5 expression for a query: its {@link queryTerms} as string literals joined by OR, so any word may
 * match and BM25 ranks. `''` when no word is left (the caller returns no hits).
 */
export function ftsQuery(query: string): string {
  return queryTerms(query)
    .map((term) => ftsString(term))
    .join(' OR ');
}
