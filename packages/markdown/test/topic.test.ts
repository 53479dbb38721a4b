import { describe, expect, it } from 'vitest';
import { normalizeTopic } from '../src/index.js';

describe('normalizeTopic (seed 000 topic normalization)', () => {
  it.each([
    ['"PPR"', 'PPR'],
    ['<relevant topic>', ''],
    ['', ''],
    ['   ', ''],
    ['app/partial-pre-rendering/index', 'partial pre-rendering'],
    ['dependencies-with-yield', 'dependencies with yield'],
    ['tutorial/dependencies/index.md', 'dependencies'],
    ['model_validator', 'model_validator'],
    ['pydantic-settings', 'pydantic-settings'],
    ['Depends(scope="function") exit code', 'Depends(scope="function") exit code'],
    ['https://example.com/a/b', 'https://example.com/a/b'],
  ])('%j → %j', (topic, text) => {
    expect(normalizeTopic(topic).text).toBe(text);
  });

  it("keeps a path topic's segments for matching a page", () => {
    expect(normalizeTopic('tutorial/dependencies/index').path).toEqual(['tutorial', 'dependencies', 'index']);
  });
});
