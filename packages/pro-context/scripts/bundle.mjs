#!/usr/bin/env node
// Bundles the two CLIs into dist/bin/ (ESM, code-split), so that starting `pro-context` reads a few files
// instead of resolving and loading several hundred modules: start-up to the first `tools/list` answer is
// about half as long. Lazily imported parts (the HTTP client's undici, Orama, the HTML converters) become
// their own chunks and still load on first use. better-sqlite3 (a native addon) stays external, and so does
// typescript (local-docs renders installed packages' .d.ts with it, on first use; bundled, it breaks and weighs 9 MB).
// pg-native (node-postgres' optional libpq binding, never installed: postgres-store uses the JavaScript client) too.
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Packages read their own version with `createRequire(import.meta.url)('../package.json')` (and Orama's
 * with `…('@orama/orama/package.json')`). Inside a bundle `import.meta.url` is the bundle's, so each such
 * call is replaced by the JSON it would have read, resolved from the original file.
 */
const inlinePackageJson = {
  name: 'inline-package-json',
  setup(b) {
    b.onLoad({ filter: /[\\/]dist[\\/].*\.js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      if (!source.includes('package.json')) return undefined;
      const require = createRequire(args.path);
      const contents = source.replace(
        /createRequire\(import\.meta\.url\)\((['"])([^'"]*package\.json)\1\)/g,
        (_match, _quote, spec) => {
          const file = spec.startsWith('.') ? resolve(dirname(args.path), spec) : require.resolve(spec);
          const { name, version } = JSON.parse(readFileSync(file, 'utf8'));
          return `(${JSON.stringify({ name, version })})`;
        },
      );
      return { contents, loader: 'js' };
    });
  },
};

/**
 * zod's entry re-exports every locale (`z.locales`, some 40 of them, ~250 KB of the start-up chunk); pro-context
 * only ever uses the English one, which zod installs itself (`config(en())` imports `locales/en.js` directly).
 * The bundle gets a locales index with English only: less to parse and compile at every start.
 */
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(b) {
    b.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, () => ({
      contents: 'export { default as en } from "./en.js";',
      loader: 'js',
    }));
  },
};

/**
 * The MCP SDK's server builds an Ajv JSON Schema validator (Ajv, ajv-formats, fast-uri: ~190 KB to parse and run
 * at every start) for one thing: checking a client's answer to an elicitation request. pro-context never elicits,
 * so the bundle's server gets a validator that says so if that ever changes, and Ajv stays out of start-up.
 */
const noElicitationValidator = {
  name: 'no-elicitation-validator',
  setup(b) {
    b.onLoad(
      { filter: /[\\/]@modelcontextprotocol[\\/]sdk[\\/]dist[\\/]esm[\\/]validation[\\/]ajv-provider\.js$/ },
      () => ({
        contents: `export class AjvJsonSchemaValidator {
  getValidator() {
    throw new Error('pro-context is bundled without a JSON Schema validator: elicitation responses cannot be validated.');
  }
}`,
        loader: 'js',
      }),
    );
  },
};

// The engine chunks fetched pages in worker threads; a Worker starts from a file, which the markdown package's
// pool looks for beside itself (`prepare-worker.js`): in the bundle, an entry point of its own in dist/bin/.
const engineRequire = createRequire(
  createRequire(join(root, 'package.json')).resolve('@pro-context/engine/package.json'),
);
const markdownDir = dirname(engineRequire.resolve('@pro-context/markdown/package.json'));

const entries = {
  // the command: bounds the young generation, then imports the program (dist/cli.js)
  'pro-context': join(root, 'dist', 'bin.js'),
  'pro-context-admin': join(root, 'dist', 'admin.js'),
  // packed-search starts its index-building worker from `./packed-search-worker.js` beside its own module,
  // which in the bundle is a chunk in dist/bin/: the worker script is an entry point of its own there
  'packed-search-worker': createRequire(join(root, 'package.json')).resolve('@pro-context/plugin-packed-search/worker'),
  'prepare-worker': join(markdownDir, 'dist', 'prepare-worker.js'),
  // and converts each fetched page in its page worker (`page-worker.js`, beside the converter), likewise
  'page-worker': join(markdownDir, 'dist', 'page-worker.js'),
  // sqlite-cache checkpoints the write-ahead log from `./checkpoint-worker.js` beside its own module, likewise
  'checkpoint-worker': createRequire(join(root, 'package.json')).resolve(
    '@pro-context/plugin-sqlite-cache/checkpoint-worker',
  ),
};
for (const file of Object.values(entries)) {
  if (!existsSync(file)) throw new Error(`${file} is missing: run tsc first`);
}

// chunk names carry content hashes: without a clean folder every build would leave the last one's behind
rmSync(join(root, 'dist', 'bin'), { recursive: true, force: true });

await build({
  entryPoints: entries,
  outdir: join(root, 'dist', 'bin'),
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: ['better-sqlite3', 'typescript', 'pg-native'],
  sourcemap: 'linked',
  // less to read and parse at every start; names are kept, so stack traces stay readable
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
  // some CommonJS dependencies call require(): give the ESM bundle one
  banner: {
    js: "import { createRequire as __proContextRequire } from 'node:module'; const require = __proContextRequire(import.meta.url);",
  },
  plugins: [inlinePackageJson, zodEnglishOnly, noElicitationValidator],
});

// @pro-context/known-libraries reads its data file at `../data/libraries.json` from its module, which in the
// bundle is a chunk in dist/bin/: ship the file there (dist/data/), as the package itself does.
const librariesJson = createRequire(join(root, 'package.json')).resolve('@pro-context/known-libraries/libraries.json');
mkdirSync(join(root, 'dist', 'data'), { recursive: true });
copyFileSync(librariesJson, join(root, 'dist', 'data', 'libraries.json'));
