import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

// One vitest run covers every workspace package: each folder with a `test/` directory is a project named
// after its package. Workspace packages resolve to their TypeScript sources through the `source` export
// condition, so tests never need a prior build (the stdio end-to-end tests spawn built `dist/` files).
const groups = ['packages', 'plugins', 'examples', 'bench'];
const projectDirs = groups.flatMap((group) => {
  if (!existsSync(group)) return [];
  if (existsSync(join(group, 'package.json'))) return [group];
  return readdirSync(group).map((name) => join(group, name));
});
// vite's default server conditions, with `source` first (vite itself is not a direct dependency here)
const conditions = ['source', 'module', 'node', 'development|production'];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ['source'] } },
  test: {
    // eventsource-parser (the MCP SDK's HTTP client) also exports a `source` condition pointing at its .ts
    // files, which node cannot load: vite transforms it instead
    server: { deps: { inline: [/sdk\/dist\/esm\/client\//, /eventsource-parser/] } },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: projectDirs
      .filter((dir) => existsSync(join(dir, 'test')) && existsSync(join(dir, 'package.json')))
      .map((dir) => ({
        extends: true,
        test: {
          name: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).name as string,
          root: dir,
          include: ['test/**/*.test.ts'],
        },
      })),
  },
});
