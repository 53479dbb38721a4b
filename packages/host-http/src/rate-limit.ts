import type { RateDecision, RateLimiter, RateLimitSettings } from '@pro-context/access';

export type { RateDecision } from '@pro-context/access';

interface Bucket {
  tokens: number;
  updatedAt: number;
  settings: RateLimitSettings;
}

/**
 * Token buckets per API key (seed 001 §10.4): capacity `burstSize`, refilled continuously at
 * `maxRequestsPerMinute / 60` tokens per second. A bucket starts full; changing a key's settings keeps its
 * tokens (capped at the new capacity). A request may cost more than one token (each JSON-RPC message of a
 * batch costs one): it is allowed only when the bucket holds them all, and then takes them all.
 */
export class TokenBuckets implements RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(private readonly now: () => number = Date.now) {}

  take(key: string, settings: RateLimitSettings, cost = 1): RateDecision {
    const now = this.now();
    const perMs = settings.maxRequestsPerMinute / 60_000;
    let bucket = this.buckets.get(key);
    if (!bucket) {
      bucket = { tokens: settings.burstSize, updatedAt: now, settings };
      this.buckets.set(key, bucket);
    }
    bucket.tokens = Math.min(settings.burstSize, bucket.tokens + (now - bucket.updatedAt) * perMs);
    bucket.updatedAt = now;
    bucket.settings = settings;
    const allowed = bucket.tokens >= cost;
    if (allowed) bucket.tokens -= cost;
    const missing = settings.burstSize - bucket.tokens;
    return {
      allowed,
      limit: settings.burstSize,
      remaining: Math.max(0, Math.floor(bucket.tokens)),
      reset: Math.ceil((now + missing / perMs) / 1000),
      retryAfter: allowed
        ? 0
        : Math.max(1, Math.ceil((Math.min(cost, settings.burstSize) - bucket.tokens) / perMs / 1000)),
    };
  }

  /** Forgets a key's bucket (after revocation). */
  forget(key: string): void {
    this.buckets.delete(key);
  }
}
