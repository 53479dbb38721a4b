import type { PackageVersion } from '@pro-context/kernel';
import { eq, explain, maxSatisfying, rcompare, valid, validRange } from '@renovatebot/pep440';

/** PEP 503 normalized project name: lower case, every run of `-`, `_` and `.` one `-`. */
export function normalizePypiName(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/[-_.]+/g, '-');
}

/** Whether `name` can be a PyPI project name (PEP 508: letters, digits, `-_.`, starting and ending alphanumeric). */
export function isPypiName(name: string): boolean {
  return /^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$/.test(name.trim());
}

/** Whether `version` is a pre-release or development release (PEP 440). */
export function isPrerelease(version: string): boolean {
  const parsed = explain(version);
  return parsed ? parsed.is_prerelease || parsed.is_devrelease : false;
}

/** Whether `version` carries a local label (`1.0+ubuntu1`): never published to PyPI, never latest stable. */
export function isLocal(version: string): boolean {
  return explain(version)?.local != null;
}

/** Versions newest first (PEP 440 order); versions that are not PEP 440 are dropped, as pip ignores them. */
export function sortNewestFirst<T extends { version: string }>(versions: T[]): T[] {
  return versions.filter((v) => valid(v.version) !== null).sort((a, b) => rcompare(a.version, b.version));
}

/** The newest release that is not a pre-release, dev release, local version or yanked. */
export function latestStableOf(versions: readonly PackageVersion[]): string | undefined {
  return versions.find((v) => !v.prerelease && !v.yanked && !isLocal(v.version))?.version;
}

/**
 * A spec as PEP 440 reads it: `0.3.x`, `2.x` and `2.*` become `==0.3.*`, `==2.*`; a bare `v2.1` loses its `v`;
 * anything else is kept as written (`~=2.5`, `>=2,<3`, `==2.*`, `2.10.1`).
 */
export function pep440Spec(spec: string): string {
  const trimmed = spec.trim();
  const wildcard = /^v?(\d+(?:\.\d+)*)(?:\.[x*])+$/i.exec(trimmed);
  if (wildcard) return `==${wildcard[1]}.*`;
  if (/^v\d/i.test(trimmed) && valid(trimmed.slice(1))) return trimmed.slice(1);
  return trimmed;
}

/**
 * The release a spec selects, or `undefined`.
 *
 * - An exact version (`2.10`, `2.10.0`, `2.0b3`, `==2.10`) selects the release equal to it under PEP 440 (`2.10` is
 *   `2.10.0`), yanked or not (PEP 592: an exact pin may select a yanked release).
 * - A specifier (`~=2.5`, `>=2,<3`, `==2.*`) selects the newest matching release that is neither yanked nor
 *   local, final releases first; pre-releases only when the specifier names one or nothing else matches.
 */
export function selectVersion(versions: readonly PackageVersion[], spec: string): string | undefined {
  let wanted = pep440Spec(spec);
  // `==2.10.5` and `===2.10.5` pin one release like a bare version does (PEP 592); `==2.10.*` is a range.
  const pinned = /^===?\s*([^\s,*]+)$/.exec(wanted)?.[1];
  if (pinned && valid(pinned) !== null) wanted = pinned;
  if (valid(wanted) !== null) {
    return (versions.find((v) => v.version === wanted) ?? versions.find((v) => eq(v.version, wanted)))?.version;
  }
  if (!validRange(wanted)) return undefined;
  const candidates = versions.filter((v) => !v.yanked && !isLocal(v.version)).map((v) => v.version);
  const final = candidates.filter((v) => !isPrerelease(v));
  return (
    maxSatisfying(final, wanted) ??
    maxSatisfying(candidates, wanted) ??
    maxSatisfying(candidates, wanted, { prereleases: true }) ??
    undefined
  );
}

/**
 * Up to `count` installable final releases nearest to the version a spec names (its first `1.2.3`-like part),
 * newest first; the newest ones when the spec names no version.
 */
export function nearestVersions(versions: readonly PackageVersion[], spec: string | undefined, count = 10): string[] {
  const available = versions.filter((v) => !v.yanked && !v.prerelease && !isLocal(v.version)).map((v) => v.version);
  const pool = available.length > 0 ? available : versions.map((v) => v.version);
  const anchor = spec ? /\d+(?:\.\d+)*/.exec(spec)?.[0] : undefined;
  if (!anchor || pool.length <= count) return pool.slice(0, count);
  // `pool` is newest first: find the first release older than the anchor and take a window around it.
  let index = pool.findIndex((v) => rcompare(v, anchor) > 0);
  if (index === -1) index = pool.length;
  const start = Math.min(Math.max(0, index - Math.floor(count / 2)), pool.length - count);
  return pool.slice(start, start + count);
}
