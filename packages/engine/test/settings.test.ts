import { configJsonSchema, validateConfig } from '@pro-context/config';
import { createSilentLogger } from '@pro-context/logging';
import { createKernel } from '@pro-context/runtime';
import { catalogErrorOf, createTestKernel } from '@pro-context/testing';
import { describe, expect, it } from 'vitest';
import { enginePlugin } from '../src/plugin.js';
import { librariesConfigSection, projectConfigSection } from '../src/settings.js';

describe('the engine owns libraries and project', () => {
  it('accepts a library documented only by a versionedDocsUrl, and names every option when none is given', async () => {
    const versioned = await createTestKernel({
      plugins: [enginePlugin],
      config: { libraries: [{ id: 'zod', name: 'Zod', versionedDocsUrl: 'https://zod.test/v{version}/' }] },
    });
    await versioned.stop();
    const error = await catalogErrorOf(
      createTestKernel({ plugins: [enginePlugin], config: { libraries: [{ id: 'zod', name: 'Zod' }] } }),
    );
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toMatch(
      /docsUrl, versionedDocsUrl, llmsTxtUrl, llmsFullTxtUrl, repository, localPath, source or sources/,
    );
  });

  it('reads its sections, typed, from the validated configuration', async () => {
    const kernel = await createTestKernel({
      plugins: [enginePlugin],
      config: {
        libraries: [{ name: 'Zod', docsUrl: 'https://zod.test/' }],
        project: { libraryOverrides: { zod: { ttlHours: 2 } } },
      },
    });
    expect(librariesConfigSection.read(kernel.config)).toEqual([{ name: 'Zod', docsUrl: 'https://zod.test/' }]);
    expect(projectConfigSection.read(kernel.config)).toMatchObject({ autoDetect: true, workingDirectory: '.' });
    await kernel.stop();
  });

  it('puts libraries and project in the JSON Schema only when the engine is installed', () => {
    const withEngine = configJsonSchema([enginePlugin]) as { properties: Record<string, { type?: string }> };
    expect(withEngine.properties.libraries).toMatchObject({ type: 'array' });
    expect(withEngine.properties.project).toMatchObject({ type: 'object' });
    const bare = configJsonSchema([]) as { properties: Record<string, unknown> };
    expect(Object.keys(bare.properties)).toEqual(['logging', 'security', 'http']);
  });

  it('without the engine, libraries is an unrecognized key of a bare kernel', async () => {
    const error = await catalogErrorOf(
      createKernel({ logger: createSilentLogger(), validateConfig, config: { libraries: [] } }).start(),
    );
    expect(error.message).toMatch(/libraries: Unrecognized key/);
  });
});
