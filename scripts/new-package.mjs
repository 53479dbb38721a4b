#!/usr/bin/env node
// Scaffolds a workspace package: package.json, tsconfigs, src/index.ts, README.md.
// usage: node scripts/new-package.mjs <folder> <name> "<description>" [--private]
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const [folder, name, description = '', flag] = process.argv.slice(2);
if (!folder || !name) {
  console.error('usage: node scripts/new-package.mjs <folder> <name> "<description>" [--private]');
  process.exit(2);
}
const isPrivate = flag === '--private';
const depth = folder.split('/').length;
const up = '../'.repeat(depth);
mkdirSync(join(folder, 'src'), { recursive: true });
mkdirSync(join(folder, 'test'), { recursive: true });
const pkg = {
  name,
  version: '0.1.0',
  description,
  ...(isPrivate ? { private: true } : {}),
  license: 'MIT',
  type: 'module',
  engines: { node: '>=20.18.1' },
  exports: {
    '.': { source: './src/index.ts', types: './dist/index.d.ts', default: './dist/index.js' },
  },
  types: './dist/index.d.ts',
  files: ['dist', 'README.md', 'CHANGELOG.md'],
  scripts: {
    build: 'tsc -p tsconfig.build.json',
    typecheck: 'tsc -p tsconfig.json --noEmit',
    test: `vitest run --root ${up.slice(0, -1)} --project ${name}`,
  },
  ...(isPrivate
    ? {}
    : {
        publishConfig: {
          access: 'public',
          exports: { '.': { types: './dist/index.d.ts', default: './dist/index.js' } },
        },
      }),
};
if (!existsSync(join(folder, 'package.json')))
  writeFileSync(join(folder, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
writeFileSync(
  join(folder, 'tsconfig.json'),
  `${JSON.stringify(
    {
      extends: `${up}tsconfig.base.json`,
      compilerOptions: { noEmit: true, customConditions: ['source'], rootDir: '.' },
      include: ['src', 'test'],
    },
    null,
    2,
  )}\n`,
);
writeFileSync(
  join(folder, 'tsconfig.build.json'),
  `${JSON.stringify(
    {
      extends: `${up}tsconfig.base.json`,
      compilerOptions: { outDir: 'dist', rootDir: 'src' },
      include: ['src'],
      exclude: ['src/**/*.test.ts'],
    },
    null,
    2,
  )}\n`,
);
if (!existsSync(join(folder, 'src/index.ts'))) writeFileSync(join(folder, 'src/index.ts'), 'export {};\n');
if (!existsSync(join(folder, 'README.md'))) writeFileSync(join(folder, 'README.md'), `# ${name}\n\n${description}\n`);
