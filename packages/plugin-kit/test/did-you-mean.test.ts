import { z } from '@pro-context/kernel';
import { describe, expect, it } from 'vitest';
import { closestName, schemaKeysAt, withKeyGuess } from '../src/index.js';

describe('closestName', () => {
  it('finds what a misspelling was meant to be, counting a swap of neighbouring letters as one edit', () => {
    expect(closestName('loging', ['logging', 'server'])).toBe('logging');
    expect(closestName('prot', ['host', 'port'])).toBe('port');
    expect(closestName('Context7', ['context7', 'exa'])).toBe('context7');
    expect(closestName('openai-embedings', ['openai-embeddings', 'grounding'])).toBe('openai-embeddings');
  });

  it('guesses nothing when no name is close enough for its length', () => {
    expect(closestName('host', ['port'])).toBeUndefined();
    expect(closestName('sight', ['site'])).toBeUndefined();
    expect(closestName('logging', ['logging'])).toBeUndefined();
  });
});

describe('schemaKeysAt', () => {
  const schema = z.object({
    server: z.object({ port: z.number(), host: z.string() }).optional(),
    libraries: z.array(
      z.strictObject({ id: z.string(), sources: z.object({ depth: z.number() }).default({ depth: 1 }) }),
    ),
  });

  it('reads the keys of the object at a path, through optional, default and array wrappers', () => {
    expect(schemaKeysAt(schema, [])).toEqual(['server', 'libraries']);
    expect(schemaKeysAt(schema, ['server'])).toEqual(['port', 'host']);
    expect(schemaKeysAt(schema, ['libraries', '0', 'sources'])).toEqual(['depth']);
  });

  it('has none where the schema holds no object', () => {
    expect(schemaKeysAt(schema, ['server', 'port'])).toEqual([]);
    expect(schemaKeysAt(schema, ['nowhere'])).toEqual([]);
    expect(schemaKeysAt(undefined, [])).toEqual([]);
  });
});

describe('withKeyGuess', () => {
  const unknown = { path: 'server.prot', message: 'Unrecognized key (check its spelling and indentation)' };

  it("adds the sibling a misspelt key was meant to be, asking for the parent path's names", () => {
    const asked: string[] = [];
    const guessed = withKeyGuess(unknown, (parent) => {
      asked.push(parent);
      return ['host', 'port'];
    });
    expect(guessed.message).toBe("Unrecognized key (check its spelling and indentation): did you mean 'port'?");
    expect(asked).toEqual(['server']);
  });

  it('leaves other issues, and keys with no close sibling, as they are', () => {
    const wrongType = { path: 'server.port', message: 'expected a number, got a string' };
    expect(withKeyGuess(wrongType, () => ['port'])).toBe(wrongType);
    expect(withKeyGuess(unknown, () => ['tls'])).toBe(unknown);
  });
});
