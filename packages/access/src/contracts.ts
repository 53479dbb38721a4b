import { createToken } from '@pro-context/kernel';

/** A per-key rate limit (token bucket): refill per minute and capacity. */
export interface RateLimitSettings {
  maxRequestsPerMinute: number;
  burstSize: number;
}

/** An API key as stored: never the key itself, only its SHA-256 hash (hex). */
export interface ApiKeyRecord {
  /** Short public id (`key_…`), safe to print and log. */
  id: string;
  /** Unique name given at creation (a person, a machine, a CI job). */
  name: string;
  /** Epoch ms. */
  createdAt: number;
  /** Epoch ms of the last authenticated request, `null` until then. */
  lastUsedAt: number | null;
  /** Epoch ms of revocation, `null` while the key is valid. */
  revokedAt: number | null;
  /** This key's own limit, `null` for the configured default. */
  rateLimit: RateLimitSettings | null;
}

/**
 * Durable API keys of an HTTP host (seed 001 §10.3). Keys are looked up by the SHA-256 hash of what a
 * client presents; the store never sees a key. `idOrName` arguments match the id first, then the name.
 */
export interface KeyStore {
  /** Adds a key; `CONFIG_INVALID` when the name is taken. */
  add(key: { id: string; name: string; hash: string; createdAt: number }): Promise<ApiKeyRecord>;
  /** The key with this hash (revoked ones too, with `revokedAt` set), and the stored hash. */
  findByHash(hash: string): Promise<(ApiKeyRecord & { hash: string }) | undefined>;
  find(idOrName: string): Promise<ApiKeyRecord | undefined>;
  list(): Promise<ApiKeyRecord[]>;
  /** Revokes a key (effective on its next request); `undefined` when no key matches. */
  revoke(idOrName: string, at: number): Promise<ApiKeyRecord | undefined>;
  /** Sets (or with `null` clears) a key's own rate limit. */
  setRateLimit(idOrName: string, limit: RateLimitSettings | null): Promise<ApiKeyRecord | undefined>;
}

/** Usage of one key since the last flush: added to the stored totals. */
export interface UsageDelta {
  keyId: string;
  requests: number;
  /** Requests answered with an error status, plus failed tool calls. */
  errors: number;
  /** Tool calls by tool name. */
  tools: Record<string, { calls: number; errors: number }>;
  /** Epoch ms of the latest request in the delta. */
  lastUsedAt: number;
}

/** Stored usage totals of one key. */
export interface UsageSummary {
  keyId: string;
  requests: number;
  errors: number;
  toolCalls: Record<string, number>;
  toolErrors: Record<string, number>;
  lastUsedAt: number | null;
}

/** Durable usage counters per API key (hosts batch their writes). */
export interface UsageStore {
  record(deltas: readonly UsageDelta[]): Promise<void>;
  /** Totals of one key, or of every key that has any. */
  summary(keyId?: string): Promise<UsageSummary[]>;
}

/** A decision for one request, with what the `X-RateLimit-*` headers say. */
export interface RateDecision {
  allowed: boolean;
  /** Bucket capacity (`burstSize`). */
  limit: number;
  /** Whole tokens left after this request. */
  remaining: number;
  /** Epoch seconds at which the bucket is full again. */
  reset: number;
  /** Seconds until enough tokens for the request are back (only when refused). */
  retryAfter: number;
}

/**
 * Token buckets per API key (seed 001 §10.4): capacity `burstSize`, refilled at `maxRequestsPerMinute / 60`
 * per second; a request costing `cost` tokens is allowed only when the bucket holds them all. The HTTP host
 * keeps buckets in memory unless a plugin binds {@link rateLimiterToken} (a store shared by replicas).
 */
export interface RateLimiter {
  take(keyId: string, settings: RateLimitSettings, cost: number): RateDecision | Promise<RateDecision>;
  /** Forgets a key's bucket (after revocation). */
  forget(keyId: string): void | Promise<void>;
}

/** Singular contract: the API keys of an HTTP host (the `sqlite-cache` plugin provides it). */
export const keyStoreToken = createToken<KeyStore>('kernel.keyStore');
/** Singular contract: usage per API key (the `sqlite-cache` plugin provides it). */
export const usageStoreToken = createToken<UsageStore>('kernel.usageStore');
/** Optional contract: rate-limit buckets shared by every replica (unbound: the host's in-memory buckets). */
export const rateLimiterToken = createToken<RateLimiter>('access.rateLimiter');
