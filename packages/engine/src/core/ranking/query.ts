/**
 * Query analysis (issue #28): what a question asks, as agents write it. The words that frame a question ("how do
 * I", "why does my", "what is the difference between", "not working") say what kind of answer is wanted, not what
 * it is about; the search backend gets the question without them, and the re-ranking reads the intent they state.
 */

/** What a question asks for: it steers the kinds of pages and sections ranked first. */
export type QueryIntent = 'comparison' | 'troubleshooting' | 'howto' | 'api' | 'concept';

/** A question taken apart: the words to search for, its intent, and the subjects a comparison names. */
export interface QueryAnalysis {
  /** The question without its scaffolding (what the search backend is asked). */
  text: string;
  intent: QueryIntent;
  /** The subjects a comparison names (`X vs Y`: `X` and `Y`; one when the other is the library itself). */
  subjects: string[];
}

/**
 * Phrases that frame a question and name nothing in the docs, removed before the backend is asked. The backend's own
 * stop words already drop `how`, `do`, `I`, `why`, `my`; these are the framing words it would otherwise match in
 * prose (`difference`, `way`, `work`) or in headings (`vs`: "VS Code").
 */
const SCAFFOLDING: readonly RegExp[] = [
  /\b(?:what(?:'s| is| are)\s+)?(?:the\s+)?(?:main\s+|key\s+)?differences?\s+(?:between|of|from)\b/gi,
  /\b(?:different|differ)\s+(?:from|than)\b/gi,
  /\bwhat(?:'s| is| are)\s+the\s+difference\b/gi,
  /\bcompared?\s+(?:to|with)\b/gi,
  /\b(?:vs\.?|versus)(?=\s|$|[,?])/gi,
  /\bwhich\s+(?:one\s+)?(?:should|do|would|to)\s+(?:i|we|you)?\s*(?:use|pick|choose|prefer)\b/gi,
  /\bwhen\s+(?:should\s+(?:i|we|you)\s+|to\s+)use\s+which\b/gi,
  /\bwhen\s+to\s+use\s+(?:which|each)\b/gi,
  /\bwhat(?:'s|\s+is)\s+the\s+(?:(?:best|right|recommended|correct|proper|simplest|easiest)\s+)?way\s+to\b/gi,
  /\b(?:is\s+there\s+(?:a|any)\s+way|is\s+it\s+possible)\s+to\b/gi,
  /\b(?:i\s+(?:want|need|would\s+like)\s+to)\b/gi,
  /\bcan\s+i\s+just\b/gi,
  /\b(?:is\s+)?not\s+working\b|\b(?:does\s*n[o']t|doesn't|don't|do\s+not)\s+work\b/gi,
  /\bwhat\s+should\s+(?:i|we)\s+do\b/gi,
];

/** A question about a failure: why something happens, what went wrong, an error or a symptom. */
const TROUBLESHOOTING =
  /\bwhy\s+(?:does|do|is|are|did|would|won't|doesn't|isn't|aren't|can't|am|my)\b|\b(?:not\s+working|doesn't\s+work|does\s+not\s+work|won't|can't|cannot|fails?|failing|failed|broken|crash\w*|hangs?|stuck|errors?|exceptions?|warnings?|complains?|keeps?\s+\w+ing|not\s+\w+ing|times?\s+out|twice|flicker\w*|instead\s+of|wrong|unexpected\w*)\b/i;

/** A question asking how to do something. */
const HOWTO =
  /^\s*(?:how\s+(?:do|can|should|would|to)\b|(?:i\s+(?:want|need)\s+to)\b|is\s+there\s+a\s+way\b|(?:what(?:'s| is)\s+the\s+(?:(?:best|right|recommended|correct|proper|simplest|easiest)\s+)?way\s+to)\b)/i;

/** A question asking what something is. */
const CONCEPT = /^\s*(?:what\s+(?:is|are)\b|what's\b|explain\b|when\s+should\b)/i;

/** The cues that make `X or Y` a comparison (`functional API or graph API, which one should I use`). */
const CHOICE_CUE = /\b(?:which|better|difference|differences|prefer|should\s+i\s+use|choose|pick)\b/i;

/** Words that end a subject: scaffolding and function words on either side of it. */
const SUBJECT_EDGE =
  /^(?:the|a|an|between|difference|differences|what|whats|what's|is|are|of|to|use|using|for|in|when|which|one|should|i|we|you|just|can|do|does|how|it|its|my|and|or|vs|versus|compared|with|from|than|better)$/i;

/** The words of a subject phrase without scaffolding at its ends, at most four words. */
function subjectOf(phrase: string, fromEnd: boolean): string {
  const words = phrase
    .split(/[\s,?!;:]+/)
    .map((w) => w.trim())
    .filter(Boolean);
  const kept: string[] = [];
  const ordered = fromEnd ? [...words].reverse() : words;
  for (const word of ordered) {
    if (SUBJECT_EDGE.test(word)) {
      if (kept.length > 0) break;
      continue;
    }
    kept.push(word);
    if (kept.length === 4) break;
  }
  return (fromEnd ? kept.reverse() : kept).join(' ');
}

/**
 * At most {@link MAX_QUESTION} characters of a question: the tools' schemas allow 500; the patterns below are
 * checked for inputs of that size (packages/robustness/redos-allowlist.json).
 */
const MAX_QUESTION = 1000;
function bounded(question: string): string {
  return question.length > MAX_QUESTION ? question.slice(0, MAX_QUESTION) : question;
}

/** The subjects a comparison names, or none when the question compares nothing. */
export function comparisonSubjects(question: string): string[] {
  const text = bounded(question).replace(/\s+/g, ' ').trim();
  const between = /\bdiff\w*\s+between\s+(.+?)\s+and\s+(.+?)(?:[?,.;]|$)/i.exec(text);
  if (between) return [subjectOf(between[1] as string, false), subjectOf(between[2] as string, false)].filter(Boolean);
  const versus = /^(.*?)\s*\b(?:vs\.?|versus|compared\s+(?:to|with))(?=\s|$|[,?])\s*(.*)$/i.exec(text);
  if (versus) {
    const before = subjectOf(versus[1] as string, true);
    const after = subjectOf(
      (versus[2] as string).split(/[,?;]|\s+(?:when|which|what|can|should|for)\s/i)[0] ?? '',
      false,
    );
    return [before, after].filter(Boolean);
  }
  // whitespace is collapsed to single spaces above: the splits below are single searches (linear; issue #25)
  const differ = /\b(?:different|differ) (?:from|than) /i.exec(text);
  if (differ) {
    const head = text.slice(0, differ.index);
    const before = subjectOf(head.replace(/^\s*how (?:is|are|does|do) /i, ''), true);
    return [before, subjectOf(text.slice(differ.index + differ[0].length), false)].filter(Boolean);
  }
  if (CHOICE_CUE.test(text)) {
    const first = text.split(/[,?;]/)[0] ?? '';
    const at = first.toLowerCase().indexOf(' or ');
    if (at >= 0) return [subjectOf(first.slice(0, at), true), subjectOf(first.slice(at + 4), false)].filter(Boolean);
  }
  return [];
}

/** The question without its scaffolding, whitespace collapsed; the question itself when nothing else is left. */
export function withoutScaffolding(question: string): string {
  let out = bounded(question);
  for (const pattern of SCAFFOLDING) out = out.replace(pattern, ' ');
  out = out
    .replace(/\s+([,?!;:])/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
  return /[\p{L}\p{N}]/u.test(out) ? out : question;
}

/** An identifier-shaped word (`setupFiles`, `model_validator`, `vi.mock`, `no-unused-vars`, `useEffect()`). */
const IDENTIFIER = /[a-z0-9][_.][A-Za-z]|[A-Za-z][_.][a-z0-9]|\b[a-z$]+[A-Z]\w*|\(\)|\b[a-z]+(?:-[a-z0-9]+){2,}\b/;

/** Analyses a question (the library's own name already taken out): see {@link QueryAnalysis}. */
export function analyzeQuery(asked: string): QueryAnalysis {
  const question = bounded(asked);
  const subjects = comparisonSubjects(question);
  const text = withoutScaffolding(question);
  let intent: QueryIntent;
  if (subjects.length > 0) intent = 'comparison';
  else if (TROUBLESHOOTING.test(question)) intent = 'troubleshooting';
  else if (HOWTO.test(question)) intent = 'howto';
  else if (CONCEPT.test(question)) intent = 'concept';
  else if (IDENTIFIER.test(question)) intent = 'api';
  else intent = 'howto';
  return { text, intent, subjects };
}

/** What the search backend is asked for a question: {@link withoutScaffolding}. */
export function searchText(question: string): string {
  return withoutScaffolding(question);
}
