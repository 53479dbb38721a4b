import { kernelTokens, type StartedKernel } from '@pro-context/kernel';
import { createTestKernel } from '@pro-context/testing';
import semver from 'semver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NpmRegistryResolver, npmPluginOptionsSchema, processNpmEnvironment } from '../src/index.js';

// Opt-in: PRO_CONTEXT_LIVE_NPM=1 asks the real registry of this machine's npm configuration. Every other test
// runs against loopback fakes.
const live = process.env.PRO_CONTEXT_LIVE_NPM === '1';

describe.skipIf(!live)('the registry of your npm configuration (PRO_CONTEXT_LIVE_NPM=1)', () => {
  let kernel: StartedKernel;
  let resolver: NpmRegistryResolver;
  beforeAll(async () => {
    kernel = await createTestKernel({ config: { security: { allowPrivateNetwork: false } } });
    resolver = new NpmRegistryResolver(
      npmPluginOptionsSchema.parse({}),
      kernel.resolve(kernelTokens.http),
      processNpmEnvironment(),
    );
  });
  afterAll(async () => {
    await kernel?.stop();
  });

  it('looks up react with dates and links, and resolves ^18 to an 18.x release', async () => {
    const metadata = await resolver.lookup('react');
    expect(metadata?.repository).toContain('facebook/react');
    expect(semver.valid(metadata?.latestStable)).not.toBeNull();
    expect(metadata?.versions.find((v) => v.version === '18.2.0')?.publishedAt).toMatch(/^2022-06-14/);
    expect(semver.major((await resolver.resolveVersion('react', '^18')).version)).toBe(18);
  });

  it('resolves a scoped package, @tanstack/react-query, and its 4.x line', async () => {
    const resolved = await resolver.resolveVersion('@tanstack/react-query', '4.x');
    expect(semver.major(resolved.version)).toBe(4);
    expect(resolved.metadata.versions.length).toBeGreaterThan(100);
    expect((await resolver.resolveVersion('@tanstack/react-query')).version).toBe(resolved.metadata.latestStable);
  });
});
