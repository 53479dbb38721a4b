import { describe, expect, it } from 'vitest';
import { createCodeTokenizer } from '../src/tokenizer.js';

const tokenizer = createCodeTokenizer();
const indexTerms = (text: string) => {
  const terms: string[] = [];
  tokenizer.indexTerms(text, (_surface, term) => terms.push(term));
  return terms;
};
const queryTerms = (text: string) => tokenizer.queryTerms(text).map((q) => q.term);

describe('code-aware tokenizer', () => {
  it.each([
    ['field_validator', ['field_valid', 'field', 'valid']],
    ['model_validate_json', ['model_validate_json', 'model', 'valid', 'json']],
    ['BaseModel', ['basemodel', 'base', 'model']],
    ['Depends()', ['depend']],
    ['response_model', ['response_model', 'respons', 'model']],
    ['APIRouter', ['apirout', 'api', 'router']],
    ['@app.get', ['app.get', 'app', 'get']],
    ['httpx.AsyncClient', ['httpx.asynccli', 'httpx', 'asynccli', 'async', 'client']],
  ])('indexes %s whole and in parts', (identifier, expected) => {
    expect(indexTerms(identifier)).toEqual(expected);
  });

  it('stems words, so plural and singular meet', () => {
    expect(queryTerms('validators')).toEqual(queryTerms('validator'));
    expect(queryTerms('validators')).toEqual(['valid']);
  });

  it('drops stop words and one-letter tokens, and keeps words that matter in API docs', () => {
    expect(queryTerms('how do I use the field of a model')).toEqual(['us', 'field', 'model']);
    expect(queryTerms('not None if all')).toEqual(['not', 'none', 'if', 'all']);
  });

  it('does not take the abbreviations e.g., i.e. and etc. for search terms', () => {
    expect(queryTerms('apply a dependency (e.g. an API key check), i.e. everywhere, etc.')).toEqual(
      queryTerms('apply a dependency (an API key check), everywhere'),
    );
    expect(indexTerms('e.g. i.e. etc.')).toEqual([]);
  });

  it('ignores link targets, bare URLs and MkDocs attribute lists', () => {
    expect(queryTerms('See [the guide](../concepts/serialization.md) or https://example.com/settings')).toEqual([
      'see',
      'guid',
    ]);
    expect(queryTerms('## Field validators { #field-validators }')).toEqual(['field', 'valid']);
  });

  it('keeps the written form of each query word for typo matching', () => {
    expect(tokenizer.queryTerms('Validators')).toEqual([{ term: 'valid', surface: 'validators' }]);
  });

  it('meets British and American spellings', () => {
    expect(queryTerms('serialise the behaviour of a customised model')).toEqual(
      queryTerms('serialize the behavior of a customized model'),
    );
    expect(queryTerms('promise exercise otherwise')).toEqual(['promis', 'exercis', 'otherwis']);
  });

  it('reads contractions as words, not as a word and a stray suffix', () => {
    expect(queryTerms("Why isn't my value validated?")).toEqual(queryTerms('Why is not my value validated?'));
    expect(queryTerms("can't won't don't")).toEqual(['not']);
    // `re`, `ll` and `ve` would otherwise be indexed (and `re` is a Python module)
    expect(queryTerms("you're we'll they've it'd I'm")).toEqual([]);
    expect(queryTerms("Pydantic's model")).toEqual(['pydant', 'model']);
    expect(queryTerms("import re; re.compile('x')")).toContain('re');
  });

  it('folds diacritics', () => {
    expect(queryTerms('café')).toEqual(queryTerms('cafe'));
  });

  it('counts repeated words once per occurrence when indexing (term frequency)', () => {
    expect(tokenizer.indexTerms('model model model', () => {})).toBe(3);
  });

  it('analyses words the same way after its word cache filled up and started over', () => {
    const small = createCodeTokenizer('english', { cacheWords: 3 });
    const text = 'field_validator BaseModel httpx.AsyncClient models validators BaseModel field_validator';
    const terms = (t: typeof tokenizer) => {
      const out: string[] = [];
      t.indexTerms(text, (surface, term) => out.push(`${surface}:${term}`));
      return out;
    };
    // twice: the second pass meets words the small cache dropped and words it still holds
    expect(terms(small)).toEqual(terms(tokenizer));
    expect(terms(small)).toEqual(terms(tokenizer));
    expect(small.queryTerms(text)).toEqual(tokenizer.queryTerms(text));
  });

  it('hands out the words it indexes, whose analysis gives the same terms in the same order', () => {
    const text =
      "Use `field_validator()` on BaseModel's fields: see [docs](https://x.dev/a) {#anchor} — httpx.AsyncClient isn't Ünïcode 42";
    const expected: string[] = [];
    const length = tokenizer.indexTerms(text, (surface, term) => expected.push(`${surface}:${term}`));
    const fresh = createCodeTokenizer('english', { cacheWords: 2 });
    const hashes = new Map<string, number>();
    const seen: string[] = [];
    const counted = fresh.indexWords(text, (cleaned, start, end, hash) => {
      const word = cleaned.slice(start, end);
      // the same word, the same hash
      expect(hashes.get(word) ?? hash).toBe(hash);
      hashes.set(word, hash);
      const terms = fresh.analyzeWord(word);
      for (const { surface, term } of terms) seen.push(`${surface}:${term}`);
      return terms.length;
    });
    expect(seen).toEqual(expected);
    expect(counted).toBe(length);
    expect(fresh.analyzeWord('the')).toEqual([]);
  });

  it('does not trip over Object.prototype names', () => {
    expect(queryTerms('constructor __proto__ toString')).toEqual([
      'constructor',
      '__proto__',
      'proto',
      'tostr',
      'string',
    ]);
  });
});

/**
 * The words and contractions as the tokenizer defines them, with the patterns themselves (the tokenizer
 * finds them on character codes, for speed): the reference the scanner must agree with.
 */
function referenceWords(text: string): string[] {
  const ascii = !/[\u0080-\uffff]/.test(text);
  const contraction = ascii
    ? /(?<![A-Za-z])([A-Za-z]+)'(t|s|re|ve|ll|d|m)(?![A-Za-z0-9_])/gi
    : /(?<!\p{L})(\p{L}+)['’](t|s|re|ve|ll|d|m)(?![\p{L}\p{N}_])/giu;
  const irregular: Record<string, string> = { ca: 'can', wo: 'will', sha: 'shall', ai: 'is' };
  const expanded = text.replace(contraction, (_m, word: string, suffix: string) => {
    if (suffix.toLowerCase() !== 't' || !/n$/i.test(word)) return word;
    const base = word.slice(0, -1);
    return `${irregular[base.toLowerCase()] ?? base} not`;
  });
  return expanded.match(/[\p{L}\p{N}_]+(?:[.-][\p{L}\p{N}_]+)*/gu) ?? [];
}

describe('code-aware tokenizer: the word scanner', () => {
  // each word of the reference, tokenized alone, gives exactly the terms the scanner finds in the text
  const byReference = (text: string) => referenceWords(text).flatMap((word) => indexTerms(word));

  it.each([
    ["isn't it? Pydantic's model, you're right, can't won't shan't ain't"],
    ["ISN’T Model’S ca’nt rock’n’roll o'clock 'quoted' l'été d’accord"],
    ["the field's_validator isn't_it x'tra"],
    ['naïve café Ünïcödé façade ﬁeld İstanbul straße'],
    ['𝒜lgebra 𝟙 😀emoji😀 \ud800lone \udc00low 日本語テキスト ٣٤ values'],
    ['ſ: it’ſ, IT’ſ and Kelvin’K'],
    ['a.b-c..d --flag -x .hidden trailing. end- x.-y a_b.c_d-e'],
    ['httpx.AsyncClient(app.get) x-api-key v1.2.3 __init__ ___'],
  ])('agrees with the patterns on %s', (text) => {
    expect(indexTerms(text)).toEqual(byReference(text));
  });

  it('agrees with the patterns on random text made of the characters that matter', () => {
    const alphabet = ["'", '’', 'a', 'B', 'n', 't', 'T', 's', 'ſ', 'r', 'e', 'v', 'l', 'd', 'm', '_', '-', '.'];
    alphabet.push(' ', '1', 'é', '\u0301', '𝒜', '😀', '\ud800', '\udc00', 'K', '日', '٣', 'İ');
    let seed = 7;
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    for (let i = 0; i < 20_000; i++) {
      let text = '';
      for (let k = 1 + next(14); k > 0; k--) text += alphabet[next(alphabet.length)];
      expect(indexTerms(text), JSON.stringify(text)).toEqual(byReference(text));
    }
  });
});
