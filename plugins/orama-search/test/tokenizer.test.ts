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
