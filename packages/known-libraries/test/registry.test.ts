import { describe, expect, it } from 'vitest';
import {
  baseId,
  findKnownLibrary,
  findKnownLibraryByPackage,
  type KnownLibrary,
  KnownLibraryRegistry,
  knownLibraryRegistry,
  knownLibrarySchema,
  lookupKey,
  registryId,
  toLanguage,
} from '../src/index.js';

const entry = (over: Partial<KnownLibrary> & Pick<KnownLibrary, 'id' | 'language' | 'packages'>): KnownLibrary =>
  knownLibrarySchema.parse({
    name: over.id,
    description: 'A library made up for a test.',
    categories: ['utilities'],
    docsUrl: `https://${over.id}.example.dev`,
    ...over,
  });

describe('lookups on the shipped registry', () => {
  it('finds a library by id, package name or alias within a language', () => {
    expect(findKnownLibrary('requests', 'python')?.id).toBe('requests');
    expect(findKnownLibrary('sklearn', 'python')?.id).toBe('scikit-learn');
    expect(findKnownLibrary('Pydantic V2', 'python')?.id).toBe('pydantic');
    expect(findKnownLibrary('typing_extensions', 'python')?.id).toBe('typing-extensions');
    expect(findKnownLibrary('react query', 'javascript')?.id).toBe('tanstack-react-query');
    expect(findKnownLibrary('tanstack-react-query')?.id).toBe('tanstack-react-query');
    expect(findKnownLibrary('requests', 'javascript')).toBeUndefined();
  });

  it('keeps one entry per ecosystem for libraries in both, and the language picks it', () => {
    expect(findKnownLibrary('openai', 'python')?.id).toBe('openai');
    expect(findKnownLibrary('openai', 'javascript')?.id).toBe('openai-js');
    expect(findKnownLibrary('openai')?.id).toBe('openai'); // Python first without a language
    expect(knownLibraryRegistry.findAll('openai').map((l) => l.id)).toEqual(['openai', 'openai-js']);
    expect(knownLibraryRegistry.findAll('langchain').map((l) => l.id)).toEqual(['langchain', 'langchain-js']);
    expect(findKnownLibrary('anthropic', 'javascript')?.packages[0]).toBe('@anthropic-ai/sdk');
  });

  it('finds a library by its package name per ecosystem, and only by package names', () => {
    expect(findKnownLibraryByPackage('@tanstack/react-query', 'javascript')?.id).toBe('tanstack-react-query');
    expect(findKnownLibraryByPackage('react-query', 'javascript')?.id).toBe('tanstack-react-query');
    expect(findKnownLibraryByPackage('Flask', 'python')?.id).toBe('flask');
    expect(findKnownLibraryByPackage('psycopg2-binary', 'python')?.id).toBe('psycopg2');
    expect(findKnownLibraryByPackage('openai', 'javascript')?.id).toBe('openai-js');
    expect(findKnownLibraryByPackage('sklearn', 'python')).toBeUndefined(); // an alias, not a package
  });

  it('filters by language and category', () => {
    const agents = knownLibraryRegistry.filter({ language: 'javascript', category: 'agents' });
    expect(agents.length).toBeGreaterThan(3);
    expect(agents.every((l) => l.language === 'javascript' && l.categories.includes('agents'))).toBe(true);
  });
});

describe('the id rule', () => {
  it('normalizes PyPI names and derives npm ids from scoped names', () => {
    expect(baseId('Typing_Extensions', 'python')).toBe('typing-extensions');
    expect(baseId('llama_index', 'python')).toBe('llama-index');
    expect(baseId('react', 'javascript')).toBe('react');
    expect(baseId('@tanstack/react-query', 'javascript')).toBe('tanstack-react-query');
    expect(baseId('@supabase/supabase-js', 'javascript')).toBe('supabase-js');
    expect(baseId('@biomejs/biome', 'javascript')).toBe('biome');
    expect(registryId('openai', 'javascript', new Set(['openai']))).toBe('openai-js');
    expect(registryId('openai', 'python', new Set(['openai']))).toBe('openai');
  });

  it('maps the language names callers use onto the two registry languages', () => {
    expect(toLanguage('TypeScript')).toBe('javascript');
    expect(toLanguage('node')).toBe('javascript');
    expect(toLanguage('javascript')).toBe('javascript');
    expect(toLanguage(' Python ')).toBe('python');
    expect(toLanguage('py')).toBe('python');
    expect(toLanguage('rust')).toBeUndefined();
  });

  it('compares names case-insensitively, PyPI names by PEP 503', () => {
    expect(lookupKey('  Pydantic   V2 ', 'python')).toBe('pydantic v2');
    expect(lookupKey('Zope.Interface', 'python')).toBe('zope-interface');
    expect(lookupKey('Socket.IO', 'javascript')).toBe('socket.io');
  });
});

describe('KnownLibraryRegistry problems', () => {
  it("reports an alias that is another entry's id or package in the same language", () => {
    const registry = new KnownLibraryRegistry([
      entry({ id: 'alpha', language: 'python', packages: ['alpha'] }),
      entry({ id: 'beta', language: 'python', packages: ['beta'], aliases: ['Alpha'] }),
      entry({ id: 'gamma', language: 'python', packages: ['gamma', 'beta'] }),
    ]);
    expect(registry.problems().map((p) => p.message)).toEqual([
      'alias "Alpha" of beta is already the id of alpha (python)',
      'package "beta" of gamma is already the id of beta (python)',
    ]);
  });

  it('accepts the same name in two languages, and reports ids that break the rule or repeat', () => {
    const ok = new KnownLibraryRegistry([
      entry({ id: 'alpha', language: 'python', packages: ['alpha'] }),
      entry({ id: 'alpha-js', language: 'javascript', packages: ['alpha'], aliases: ['alpha js'] }),
    ]);
    expect(ok.problems()).toEqual([]);
    const bad = new KnownLibraryRegistry([
      entry({ id: 'alpha', language: 'python', packages: ['alpha'] }),
      entry({ id: 'alpha', language: 'javascript', packages: ['alpha'] }),
      entry({ id: 'beta', language: 'javascript', packages: ['@scope/beta'] }),
    ]);
    expect(bad.problems().map((p) => p.message)).toEqual([
      'id alpha is used twice',
      'id alpha should be alpha-js by the id rule',
      'id beta should be scope-beta by the id rule',
    ]);
  });
});

describe('the entry schema', () => {
  const base = {
    id: 'x',
    name: 'X',
    description: 'A library made up for a test.',
    language: 'python',
    packages: ['x'],
    categories: ['utilities'],
    docsUrl: 'https://x.example.dev',
  };
  const fails = (over: Record<string, unknown>) => !knownLibrarySchema.safeParse({ ...base, ...over }).success;

  it('accepts a minimal entry and defaults aliases to none', () => {
    expect(knownLibrarySchema.parse(base).aliases).toEqual([]);
  });

  it('refuses http URLs, unknown categories, ids off the pattern and stray fields', () => {
    expect(fails({ docsUrl: 'http://x.example.dev' })).toBe(true);
    expect(fails({ llmsTxt: { url: 'http://x.example.dev/llms.txt', checked: false } })).toBe(true);
    expect(fails({ categories: ['magic'] })).toBe(true);
    expect(fails({ id: 'X Lib' })).toBe(true);
    expect(fails({ homepage: 'https://x.example.dev' })).toBe(true);
    expect(fails({ repository: 'https://github.com/x/x' })).toBe(true);
  });

  it('refuses a checked llms.txt without evidence and a versioned URL without {version}', () => {
    expect(fails({ llmsTxt: { url: 'https://x.example.dev/llms.txt', checked: true } })).toBe(true);
    expect(fails({ llmsTxt: { url: 'https://x.example.dev/llms.txt', checked: true, evidence: 'seen' } })).toBe(false);
    expect(fails({ versionedDocs: { url: 'https://x.example.dev/2.0/', version: 'exact' } })).toBe(true);
    expect(fails({ versionedDocs: { url: 'http://x.example.dev/{version}/', version: 'exact' } })).toBe(true);
    expect(fails({ versionedDocs: { url: 'https://v{version}.x.example.dev', version: 'major' } })).toBe(false);
    expect(fails({ versionedDocs: { url: 'https://x.example.dev/{version}/', version: 'minor' } })).toBe(true);
  });
});
