import type { LookupFunction } from 'node:net';
import { kernelTokens, type RegistryResolver, registryResolverToken, type StartedKernel } from '@pro-context/kernel';
import { createTestKernel } from '@pro-context/testing';
import {
  type NpmEnvironment,
  type NpmPluginOptionsInput,
  NpmRegistryResolver,
  npmPlugin,
  npmPluginOptionsSchema,
} from '../src/index.js';

/**
 * A DNS lookup that refuses every name: the fakes are IP literals on loopback, so a test that tried to reach
 * a real host by name (a public registry, say) fails instead of leaving the machine.
 */
export const noDns: LookupFunction = (hostname, _options, callback) =>
  (callback as (error: Error) => void)(
    Object.assign(new Error(`tests resolve no names (asked for ${hostname})`), { code: 'ENOTFOUND' }),
  );

/** A started test kernel with the npm plugin and its resolver. */
export async function kernelWith(
  options?: NpmPluginOptionsInput,
  config: Record<string, unknown> = {},
): Promise<{ kernel: StartedKernel; resolver: RegistryResolver }> {
  const kernel = await createTestKernel({
    plugins: [options ? [npmPlugin, options] : npmPlugin],
    config,
    httpOptions: { lookup: noDns },
  });
  const resolver = kernel.resolveAll(registryResolverToken).find((r) => r.id === 'npm') as RegistryResolver;
  return { kernel, resolver };
}

/**
 * A resolver built by hand with an explicit npm environment (never the developer's own configuration), on the
 * HTTP client of a test kernel.
 */
export async function resolverWithEnvironment(
  environment: NpmEnvironment,
  options: NpmPluginOptionsInput = {},
): Promise<{ kernel: StartedKernel; resolver: NpmRegistryResolver }> {
  const kernel = await createTestKernel({ httpOptions: { lookup: noDns } });
  const resolver = new NpmRegistryResolver(
    npmPluginOptionsSchema.parse(options),
    kernel.resolve(kernelTokens.http),
    environment,
  );
  return { kernel, resolver };
}

/** A started test kernel with the npm plugin, the variables in `env` applied by the kernel as the CLI's are. */
export async function kernelFromEnv(
  env: Record<string, string>,
): Promise<{ kernel: StartedKernel; resolver: RegistryResolver }> {
  const kernel = await createTestKernel({ plugins: [npmPlugin], env, httpOptions: { lookup: noDns } });
  const resolver = kernel.resolveAll(registryResolverToken).find((r) => r.id === 'npm') as RegistryResolver;
  return { kernel, resolver };
}
