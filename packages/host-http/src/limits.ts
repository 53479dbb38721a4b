import type { ServerResponse } from 'node:http';
import { type RateDecision, type RateLimiter, type RateLimitSettings, rateLimiterToken } from '@pro-context/access';
import { ProContextError, type StartedKernel } from '@pro-context/kernel';
import type { HostMetrics } from './metrics.js';
import { TokenBuckets } from './rate-limit.js';
import { type HostRequest, type Step, sendError, sendRpcError } from './respond.js';
import type { UsageRecorder } from './usage.js';

/**
 * The rate limiter: the one a plugin bound to `@pro-context/access`'s `rateLimiterToken` (a store shared by
 * replicas; it may answer asynchronously), else in-memory {@link TokenBuckets} of this process.
 */
export function rateLimiterFor(kernel: Pick<StartedKernel, 'isBound' | 'resolve'>): RateLimiter {
  return kernel.isBound(rateLimiterToken) ? kernel.resolve(rateLimiterToken) : new TokenBuckets();
}

/** Runs `then` with the limiter's decision, at once when it answered synchronously. */
function decide(
  decision: RateDecision | Promise<RateDecision>,
  then: (decision: RateDecision) => void,
  fail: (error: unknown) => void,
): void {
  if (decision instanceof Promise) decision.then(then).catch(fail);
  else then(decision);
}

/** What the limit steps need. */
export interface LimitsContext {
  limiter: RateLimiter;
  /** The default bucket; a key's own (`ApiKeyRecord.rateLimit`) wins. */
  defaultLimit: RateLimitSettings;
  metrics: HostMetrics;
  usage: UsageRecorder | undefined;
}

/**
 * The rate-limit step (after the API key): one token of the key's bucket per request. Sets `X-RateLimit-Limit`
 * (burst), `-Remaining` and `-Reset` on every answer; over the bucket: 429 `RATE_LIMITED` with `retryAfter` and
 * `Retry-After`. Counts the request (and a refusal as an error) in the key's usage. No key: passes.
 */
export function rateLimitStep({ limiter, defaultLimit, metrics, usage }: LimitsContext): Step {
  return (req, res, next) => {
    const key = req.apiKey;
    if (!key) return next();
    const limit = key.rateLimit ?? defaultLimit;
    decide(
      limiter.take(key.id, limit, 1),
      (decision) => {
        res.setHeader('X-RateLimit-Limit', String(decision.limit));
        res.setHeader('X-RateLimit-Remaining', String(decision.remaining));
        res.setHeader('X-RateLimit-Reset', String(decision.reset));
        usage?.request(key.id, !decision.allowed);
        if (decision.allowed) return next();
        metrics.rateLimited.inc({ key: key.id });
        res.setHeader('Retry-After', String(decision.retryAfter));
        const message = `API key '${key.name}' is over its limit of ${limit.maxRequestsPerMinute} requests per minute (burst ${decision.limit}).`;
        sendError(
          res,
          429,
          new ProContextError('RATE_LIMITED', message, { retryAfter: decision.retryAfter }).toPayload(),
        );
      },
      next,
    );
  };
}

/**
 * The batch step (after the body): a batch (a JSON array of JSON-RPC messages, which protocol versions before
 * 2025-06-18 allow) costs one token per message; the request paid one in {@link rateLimitStep}, the rest are
 * taken here, all or none. A batch larger than the key's burst can never pass and says so; one the bucket cannot
 * pay now gets 429 with `Retry-After`. Nothing of a refused batch runs.
 */
export function batchStep({ limiter, defaultLimit, metrics, usage }: LimitsContext): Step {
  return (req, res, next) => {
    const key = req.apiKey;
    if (!key || !Array.isArray(req.body) || req.body.length <= 1) return next();
    const size = req.body.length;
    const limit = key.rateLimit ?? defaultLimit;
    const refuse = (decision: RateDecision | undefined, message: string, suggestion?: string) => {
      metrics.rateLimited.inc({ key: key.id });
      usage?.request(key.id, true);
      if (decision) res.setHeader('Retry-After', String(decision.retryAfter));
      const details = {
        ...(decision ? { retryAfter: decision.retryAfter } : {}),
        ...(suggestion ? { suggestion } : {}),
      };
      sendError(res, 429, new ProContextError('RATE_LIMITED', message, details).toPayload());
    };
    if (size > limit.burstSize)
      return refuse(
        undefined,
        `A batch of ${size} JSON-RPC messages is more than API key '${key.name}' may send at once (each message counts as a request; burst ${limit.burstSize}).`,
        `Send at most ${limit.burstSize} messages per request, or one message per request.`,
      );
    decide(
      limiter.take(key.id, limit, size - 1),
      (decision) => {
        res.setHeader('X-RateLimit-Remaining', String(decision.remaining));
        res.setHeader('X-RateLimit-Reset', String(decision.reset));
        if (!decision.allowed)
          return refuse(
            decision,
            `API key '${key.name}' is over its limit of ${limit.maxRequestsPerMinute} requests per minute (burst ${decision.limit}): a batch of ${size} messages counts as ${size} requests.`,
          );
        for (let i = 1; i < size; i += 1) usage?.request(key.id, false);
        next();
      },
      next,
    );
  };
}

/**
 * Session slots: at most `maxSessions` open sessions (an `initialize` beyond gets 503 `Too many sessions` with
 * `Retry-After: 60`) and at most `maxSessionsPerKey` of one API key, sessions being opened included (beyond:
 * 429 `RATE_LIMITED` naming `server.maxSessionsPerKey`), so one key cannot take every slot.
 */
export class SessionSlots {
  /** Sessions being opened (an `initialize` under way, not open yet), in all and per key. */
  private opening = 0;
  private readonly openingByKey = new Map<string, number>();

  constructor(
    private readonly settings: { maxSessions: number; maxSessionsPerKey: number; idleMs: number },
    /** Open sessions: how many in all, and how many of one key. */
    private readonly open: { count(): number; countOf(keyId: string): number },
  ) {}

  /** Admits an `initialize` (returns the function that ends its opening), or answers the refusal (undefined). */
  admit(req: HostRequest, res: ServerResponse): (() => void) | undefined {
    const key = req.apiKey;
    const { maxSessions, maxSessionsPerKey, idleMs } = this.settings;
    if (key) {
      const own = (this.openingByKey.get(key.id) ?? 0) + this.open.countOf(key.id);
      if (own >= maxSessionsPerKey) {
        const retryAfter = Math.max(1, Math.ceil(Math.min(idleMs, 60_000) / 1000));
        res.setHeader('Retry-After', String(retryAfter));
        const error = new ProContextError(
          'RATE_LIMITED',
          `API key '${key.name}' already has ${own} open sessions, the most one key may hold (server.maxSessionsPerKey: ${maxSessionsPerKey}).`,
          {
            retryAfter,
            suggestion: `Reuse an open session, or end one (DELETE /mcp with its Mcp-Session-Id); an idle session closes after ${Math.round(idleMs / 60_000)} min.`,
          },
        );
        sendError(res, 429, error.toPayload());
        return undefined;
      }
    }
    if (this.open.count() + this.opening >= maxSessions) {
      res.setHeader('Retry-After', '60');
      sendRpcError(res, 503, -32000, `Too many sessions (${maxSessions}); try again later.`);
      return undefined;
    }
    return this.hold(key?.id);
  }

  private hold(keyId: string | undefined): () => void {
    this.opening += 1;
    if (keyId !== undefined) this.openingByKey.set(keyId, (this.openingByKey.get(keyId) ?? 0) + 1);
    return () => {
      this.opening -= 1;
      if (keyId === undefined) return;
      const left = (this.openingByKey.get(keyId) ?? 1) - 1;
      if (left > 0) this.openingByKey.set(keyId, left);
      else this.openingByKey.delete(keyId);
    };
  }
}
