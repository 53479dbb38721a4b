import type { LookupFunction } from 'node:net';
import { type RegistryResolver, registryResolverToken, type StartedKernel } from '@pro-context/kernel';
import { createTestKernel } from '@pro-context/testing';
import { type PypiPluginOptionsInput, pypiPlugin } from '../src/index.js';

/**
 * A DNS lookup that refuses every name: the fakes are IP literals on loopback, so a test that tried to reach
 * a real host by name (https://pypi.org, say) fails instead of leaving the machine.
 */
export const noDns: LookupFunction = (hostname, _options, callback) =>
  (callback as (error: Error) => void)(
    Object.assign(new Error(`tests resolve no names (asked for ${hostname})`), { code: 'ENOTFOUND' }),
  );

/** A started test kernel with the pypi plugin and its resolver. */
export async function kernelWith(
  options?: PypiPluginOptionsInput,
  config: Record<string, unknown> = {},
): Promise<{ kernel: StartedKernel; resolver: RegistryResolver }> {
  const kernel = await createTestKernel({
    plugins: [options ? [pypiPlugin, options] : pypiPlugin],
    config,
    httpOptions: { lookup: noDns },
  });
  const resolver = kernel.resolveAll(registryResolverToken).find((r) => r.id === 'pypi') as RegistryResolver;
  return { kernel, resolver };
}

/** A started test kernel with the pypi plugin, the variables in `env` applied by the kernel as the CLI's are. */
export async function kernelFromEnv(
  env: Record<string, string>,
): Promise<{ kernel: StartedKernel; resolver: RegistryResolver }> {
  const kernel = await createTestKernel({ plugins: [pypiPlugin], env, httpOptions: { lookup: noDns } });
  const resolver = kernel.resolveAll(registryResolverToken).find((r) => r.id === 'pypi') as RegistryResolver;
  return { kernel, resolver };
}
