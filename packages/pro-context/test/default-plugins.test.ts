import { describe, expect, it } from 'vitest';
import { defaultPlugins, loadDefaultPlugins } from '../src/index.js';

describe("the preset's default plugins, imported only when chosen (issue #27 item 8)", () => {
  const choices: [string, Record<string, string>, Record<string, unknown> | undefined][] = [
    ['the defaults', {}, undefined],
    ['Orama', { PRO_CONTEXT_SEARCH_BACKEND: 'orama-search' }, undefined],
    ['SQLite FTS5', { PRO_CONTEXT_SEARCH_BACKEND: 'sqlite-search' }, undefined],
    ['PostgreSQL by variable', { PRO_CONTEXT_DATABASE_URL: 'postgres://localhost/pc' }, undefined],
    ['PostgreSQL by configuration', {}, { cache: { store: 'postgres' } }],
    [
      'SQLite by configuration over the variable',
      { PRO_CONTEXT_DATABASE_URL: 'postgres://localhost/pc' },
      { cache: { store: 'sqlite' } },
    ],
  ];

  it.each(choices)('are the same plugins as the synchronous list: %s', async (_name, env, values) => {
    const loaded = await loadDefaultPlugins(env, values);
    const listed = defaultPlugins(env, values);
    expect(loaded.map((p) => p.id)).toEqual(listed.map((p) => p.id));
    // the very plugin objects: one module instance each
    expect(loaded).toEqual(listed);
  });

  it('chooses the store and the search backend as the configuration says', async () => {
    const ids = async (env: Record<string, string>, values?: Record<string, unknown>) =>
      (await loadDefaultPlugins(env, values)).slice(0, 2).map((p) => p.id);
    expect(await ids({})).toEqual(['sqlite-cache', 'packed-search']);
    expect(await ids({ PRO_CONTEXT_SEARCH_BACKEND: 'sqlite-search' })).toEqual(['sqlite-cache', 'sqlite-search']);
    expect(await ids({ PRO_CONTEXT_DATABASE_URL: 'postgres://localhost/pc' })).toEqual([
      'postgres-store',
      'packed-search',
    ]);
  });
});
