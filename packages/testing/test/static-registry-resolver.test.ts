import { describe, expect, it } from 'vitest';
import { describeRegistryResolverContract } from '../src/contracts/registry-resolver.js';
import { StaticRegistryResolver } from '../src/fakes/static-registry-resolver.js';

const versions = (list: string[]) => list.map((version) => ({ version, prerelease: /[a-z]/i.test(version) }));
const pypi = () =>
  new StaticRegistryResolver('pypi', 'pypi', {
    pydantic: {
      name: 'pydantic',
      ecosystem: 'pypi',
      versions: versions(['2.12.0b1', '2.11.3', '2.10.6', '2.9.2', '1.10.21']),
      latestStable: '2.11.3',
    },
  });
const npm = () =>
  new StaticRegistryResolver('npm', 'npm', {
    zod: {
      name: 'zod',
      ecosystem: 'npm',
      versions: versions(['4.1.0', '4.0.0', '3.25.76', '3.24.1']),
      latestStable: '4.1.0',
    },
  });

describeRegistryResolverContract('StaticRegistryResolver (pypi)', {
  create: pypi,
  knownPackage: 'pydantic',
  unknownPackage: 'no-such-package',
});
describeRegistryResolverContract('StaticRegistryResolver (npm)', {
  create: npm,
  knownPackage: 'zod',
  unknownPackage: 'no-such-package',
});

describe('StaticRegistryResolver evaluates specs as its ecosystem does', () => {
  it('reads PEP 440 specifiers for pypi', async () => {
    const resolver = pypi();
    expect((await resolver.resolveVersion('pydantic', '~=2.10')).version).toBe('2.11.3');
    expect((await resolver.resolveVersion('pydantic', '>=2,<2.11')).version).toBe('2.10.6');
    expect((await resolver.resolveVersion('pydantic', '==1.*')).version).toBe('1.10.21');
    expect((await resolver.resolveVersion('pydantic', '2.10.x')).version).toBe('2.10.6');
  });

  it('reads semver ranges for npm', async () => {
    const resolver = npm();
    expect((await resolver.resolveVersion('zod', '^3.24')).version).toBe('3.25.76');
    expect((await resolver.resolveVersion('zod', '~3.24.0')).version).toBe('3.24.1');
    expect((await resolver.resolveVersion('zod', '3.x')).version).toBe('3.25.76');
    await expect(resolver.resolveVersion('zod', '^5')).rejects.toMatchObject({ code: 'VERSION_NOT_FOUND' });
  });
});
