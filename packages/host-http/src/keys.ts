import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ApiKeyRecord, KeyStore } from '@pro-context/access';

/** `pc_` and 40 characters of base64url (seed 001 §10.3): 30 random bytes, 240 bits. */
export const API_KEY_PATTERN = /^pc_[A-Za-z0-9_-]{40}$/;

/** SHA-256 of a key, hex: what the store keeps. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** A new key (from the CSPRNG), its public id and its hash. The key is shown once and never stored. */
export function generateApiKey(): { key: string; id: string; hash: string } {
  const key = `pc_${randomBytes(30).toString('base64url')}`;
  return { key, id: `key_${randomBytes(6).toString('hex')}`, hash: hashApiKey(key) };
}

/** Creates a key in the store; returns the key (print it once) and its record. */
export async function createApiKey(
  store: KeyStore,
  name: string,
  now = Date.now(),
): Promise<{ key: string; record: ApiKeyRecord }> {
  const { key, id, hash } = generateApiKey();
  const record = await store.add({ id, name, hash, createdAt: now });
  return { key, record };
}

/** Why a presented key was refused. */
export type KeyCheck =
  | { ok: true; record: ApiKeyRecord }
  | { ok: false; reason: 'missing' | 'malformed' | 'unknown' | 'revoked' };

/**
 * Checks an `Authorization` header against the store: `Bearer pc_…`, looked up by its hash (so the time a
 * lookup takes says nothing about stored keys), then compared with `timingSafeEqual`. Revoked keys fail:
 * the store is read on every request, so a revocation applies to the next one.
 */
export async function checkAuthorization(store: KeyStore, header: string | undefined): Promise<KeyCheck> {
  if (!header || header.trim() === '') return { ok: false, reason: 'missing' };
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) return { ok: false, reason: 'malformed' };
  const key = match[1] as string;
  if (!API_KEY_PATTERN.test(key)) return { ok: false, reason: 'malformed' };
  const hash = hashApiKey(key);
  const found = await store.findByHash(hash);
  if (!found || !timingSafeEqual(Buffer.from(found.hash, 'hex'), Buffer.from(hash, 'hex')))
    return { ok: false, reason: 'unknown' };
  if (found.revokedAt !== null) return { ok: false, reason: 'revoked' };
  const { hash: _hash, ...record } = found;
  return { ok: true, record };
}
