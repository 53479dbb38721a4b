import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import {
  formatVersion,
  getKnownLibrary,
  librariesDataUrl,
  librariesJsonSchemaText,
  librariesSchemaFile,
  toDescriptorFields,
  versionedDocsUrlFor,
} from '../src/index.js';

const schemaUrl = new URL(`../${librariesSchemaFile}`, import.meta.url);

describe('libraries.schema.json', () => {
  it('is the JSON Schema of the zod schema (run `pnpm --filter @pro-context/known-libraries schema` after a change)', () => {
    expect(readFileSync(schemaUrl, 'utf8')).toBe(librariesJsonSchemaText());
  });

  it('accepts the shipped data and refuses what the zod schema refuses', () => {
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    addFormats.default(ajv);
    const validate = ajv.compile(JSON.parse(readFileSync(schemaUrl, 'utf8')));
    const data = JSON.parse(readFileSync(librariesDataUrl, 'utf8'));
    expect(validate(data), JSON.stringify(validate.errors?.slice(0, 3))).toBe(true);

    const first = data.libraries[0];
    for (const broken of [
      { ...first, docsUrl: 'http://insecure.example.dev' },
      { ...first, categories: ['magic'] },
      { ...first, language: 'rust' },
      { ...first, packages: [] },
      { ...first, surprise: true },
      { ...first, llmsTxt: { url: 'https://x.example.dev/llms.txt', checked: 'yes' } },
      { ...first, versionedDocs: { url: 'https://x.example.dev/2.0/', version: 'exact' } },
    ]) {
      expect(validate({ libraries: [broken] }), JSON.stringify(broken).slice(0, 80)).toBe(false);
    }
  });
});

describe('toDescriptorFields', () => {
  it('maps an entry to the fields of the kernel LibraryDescriptor', () => {
    expect(toDescriptorFields(getKnownLibrary('pydantic')!)).toEqual({
      id: 'pydantic',
      name: 'Pydantic',
      description: 'Data validation using Python type hints.',
      language: 'python',
      packageName: 'pydantic',
      aliases: ['pydantic v2'],
      categories: ['validation', 'serialization'],
      docsUrl: 'https://docs.pydantic.dev/latest',
      packages: { pypi: 'pydantic' },
      sources: {
        llmsTxt: {
          llmsTxtUrl: 'https://docs.pydantic.dev/latest/llms.txt',
          llmsFullTxtUrl: 'https://docs.pydantic.dev/latest/llms-full.txt',
          versionedDocsUrl: 'https://docs.pydantic.dev/{version}/',
          versionFormat: 'major.minor',
        },
        github: { docsPath: 'docs' },
      },
      repository: 'pydantic/pydantic',
      docsPath: 'docs',
    });
  });

  it('points repository at the docs repository and turns extra packages into aliases', () => {
    const react = toDescriptorFields(getKnownLibrary('react')!);
    expect(react.repository).toBe('reactjs/react.dev');
    expect(react.docsPath).toBe('src/content');
    expect(react.packageName).toBe('react');
    expect(react.aliases).toContain('react-dom');
    const query = toDescriptorFields(getKnownLibrary('tanstack-react-query')!);
    expect(query.packageName).toBe('@tanstack/react-query');
    expect(query.packages).toEqual({ npm: '@tanstack/react-query' });
    expect(query.aliases).toEqual(expect.arrayContaining(['@tanstack/query-core', 'react-query', 'tanstack query']));
    // no llms.txt: only the GitHub adapter's bag, naming the docs folder of the repository
    expect(toDescriptorFields(getKnownLibrary('requests')!).sources).toEqual({ github: { docsPath: 'docs' } });
    // a versioned tree without an llms.txt of its own (v3.vitest.dev) is not handed to the llms-txt adapter
    expect(toDescriptorFields(getKnownLibrary('vitest')!).sources).toEqual({
      llmsTxt: { llmsTxtUrl: 'https://vitest.dev/llms.txt' },
      github: { docsPath: 'docs' },
    });
  });
});

describe('versions in docs URLs', () => {
  it('writes a release the way the site names it', () => {
    expect(formatVersion('2.10.3', 'exact')).toBe('2.10.3');
    expect(formatVersion('2.10.3', 'major.minor')).toBe('2.10');
    expect(formatVersion('v15.1.0', 'major')).toBe('15');
    expect(formatVersion('2.0.36', 'majorminor')).toBe('20');
    expect(formatVersion('3', 'major.minor')).toBe('3.0');
    expect(formatVersion('5.0.0b1', 'major.minor')).toBe('5.0');
  });

  it('fills in the versioned docs URL of an entry', () => {
    expect(versionedDocsUrlFor(getKnownLibrary('pydantic')!, '2.10.3')).toBe('https://docs.pydantic.dev/2.10/');
    expect(versionedDocsUrlFor(getKnownLibrary('sqlalchemy')!, '2.0.36')).toBe('https://docs.sqlalchemy.org/en/20/');
    expect(versionedDocsUrlFor(getKnownLibrary('next')!, '15.1.0')).toBe('https://nextjs.org/docs/15');
    expect(versionedDocsUrlFor(getKnownLibrary('vite')!, '5.4.2')).toBe('https://v5.vite.dev');
    expect(versionedDocsUrlFor(getKnownLibrary('fastapi')!, '0.115.0')).toBeUndefined();
  });
});
