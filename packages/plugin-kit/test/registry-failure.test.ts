import { describe, expect, it } from 'vitest';
import { versionNotFoundDetails } from '../src/index.js';

describe('versionNotFoundDetails (one shape for every registry\'s "no version matches")', () => {
  it('names the registry, the package, the version asked for, the nearest versions and the latest stable', () => {
    expect(
      versionNotFoundDetails('npm', { name: 'react', latestStable: '19.1.0' }, '^99', ['19.1.0', '19.0.0']),
    ).toEqual({
      registry: 'npm',
      name: 'react',
      requested: '^99',
      availableVersions: ['19.1.0', '19.0.0'],
      latestStable: '19.1.0',
    });
  });

  it('leaves out what is not known: no version asked for, no stable version, nothing near', () => {
    const details = versionNotFoundDetails('pypi', { name: 'only-pre' }, undefined, []);
    expect(details).toEqual({ registry: 'pypi', name: 'only-pre', availableVersions: [] });
    expect(Object.keys(details)).not.toContain('requested');
    expect(Object.keys(details)).not.toContain('latestStable');
  });

  it('keeps its own copy of the versions', () => {
    const nearest = ['1.0.0'];
    const details = versionNotFoundDetails('npm', { name: 'x' }, '2', nearest);
    nearest.push('0.9.0');
    expect(details.availableVersions).toEqual(['1.0.0']);
  });
});
