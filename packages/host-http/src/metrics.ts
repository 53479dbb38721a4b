import { type CacheStore, cacheStoreToken, type StartedKernel } from '@pro-context/kernel';
import type { ToolRunner } from '@pro-context/tool-runner';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { UsageRecorder } from './usage.js';

/** The host's Prometheus metrics (a registry of its own, so two hosts in one process do not collide). */
export class HostMetrics {
  readonly registry = new Registry();
  readonly toolCalls: Counter<'tool' | 'outcome'>;
  readonly toolDuration: Histogram<'tool'>;
  readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  readonly rateLimited: Counter<'key'>;
  readonly authFailures: Counter<'code'>;
  readonly activeSessions: Gauge;
  readonly upstreamFetches: Counter<'source' | 'operation' | 'outcome'>;
  readonly indexing: Histogram;
  readonly indexedChunks: Counter;
  readonly memoHits: Counter<'tool'>;
  private readonly detach: () => void;

  constructor(kernel: StartedKernel, sessions: () => number) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: 'pro_context_' });
    this.toolCalls = new Counter({
      name: 'pro_context_tool_calls_total',
      help: 'Tool calls by tool and outcome (ok, or the error code).',
      labelNames: ['tool', 'outcome'],
      registers,
    });
    this.toolDuration = new Histogram({
      name: 'pro_context_tool_duration_seconds',
      help: 'Tool call latency.',
      labelNames: ['tool'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.httpRequests = new Counter({
      name: 'pro_context_http_requests_total',
      help: 'HTTP requests by method, route and status.',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.rateLimited = new Counter({
      name: 'pro_context_rate_limited_total',
      help: 'Requests refused with RATE_LIMITED, by API key id.',
      labelNames: ['key'],
      registers,
    });
    this.authFailures = new Counter({
      name: 'pro_context_auth_failures_total',
      help: 'Requests refused with AUTH_REQUIRED or AUTH_INVALID.',
      labelNames: ['code'],
      registers,
    });
    this.activeSessions = new Gauge({
      name: 'pro_context_active_sessions',
      help: 'Open MCP sessions (stateful mode).',
      registers,
      collect() {
        this.set(sessions());
      },
    });
    this.upstreamFetches = new Counter({
      name: 'pro_context_upstream_fetches_total',
      help: 'Fetches from documentation sources, by source plugin, operation and outcome (ok or error code).',
      labelNames: ['source', 'operation', 'outcome'],
      registers,
    });
    this.indexing = new Histogram({
      name: 'pro_context_indexing_seconds',
      help: 'Time to fetch, chunk and index one library version.',
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    });
    this.indexedChunks = new Counter({
      name: 'pro_context_indexed_chunks_total',
      help: 'Chunks indexed.',
      registers,
    });
    this.memoHits = new Counter({
      name: 'pro_context_answer_memo_hits_total',
      help: 'Tool calls answered from the HTTP host answer memo (serialized answers served again while the tool says they hold), by tool; counted in pro_context_tool_calls_total too.',
      labelNames: ['tool'],
      registers,
    });
    cacheGauges(kernel, registers);
    this.detach = this.watchSpans(kernel);
  }

  /** The kernel's spans: source fetches (`<plugin>.fetch…`) and indexing (`engine.index`). */
  private watchSpans(kernel: StartedKernel): () => void {
    return kernel.logger.onSpan((span) => {
      const outcome = span.success ? 'ok' : String(span.fields.errorCode ?? 'error');
      if (span.name === 'engine.index') {
        this.indexing.observe(span.durationMs / 1000);
        const chunks = Number(span.fields.chunks ?? span.fields.chunkCount ?? 0);
        if (Number.isFinite(chunks) && chunks > 0) this.indexedChunks.inc(chunks);
        return;
      }
      const dot = span.name.indexOf('.');
      const operation = span.name.slice(dot + 1);
      if (dot > 0 && operation.startsWith('fetch'))
        this.upstreamFetches.inc({ source: span.name.slice(0, dot), operation, outcome });
    });
  }

  close(): void {
    this.detach();
  }
}

/** The cache's gauges (hits, misses, entries, bytes, reads by namespace and tier), read at each scrape. */
function cacheGauges(kernel: StartedKernel, registers: Registry[]): void {
  const cache: CacheStore | undefined = kernel.isBound(cacheStoreToken) ? kernel.resolve(cacheStoreToken) : undefined;
  const cacheGauge = (name: string, help: string, pick: (s: Awaited<ReturnType<CacheStore['stats']>>) => number) =>
    new Gauge({
      name,
      help,
      registers,
      async collect() {
        if (cache) this.set(pick(await cache.stats()));
      },
    });
  cacheGauge('pro_context_cache_hits', 'Cache reads answered (memory or SQLite) since start.', (s) => s.hits);
  cacheGauge('pro_context_cache_misses', 'Cache reads that found nothing since start.', (s) => s.misses);
  cacheGauge('pro_context_cache_memory_entries', 'Entries in the memory tier.', (s) => s.memoryEntries);
  cacheGauge('pro_context_cache_durable_entries', 'Entries in the SQLite tier.', (s) => s.durableEntries);
  cacheGauge('pro_context_cache_durable_bytes', 'Bytes in the SQLite tier.', (s) => s.durableBytes);
  new Gauge({
    name: 'pro_context_cache_reads',
    help: 'Cache reads since start by namespace and by the tier that answered: memory, sqlite (on disk), or miss (then fetched upstream: pro_context_upstream_fetches_total).',
    labelNames: ['namespace', 'tier'],
    registers,
    async collect() {
      if (!cache) return;
      for (const r of (await cache.stats()).reads ?? []) {
        this.set({ namespace: r.namespace, tier: 'memory' }, r.memoryHits);
        this.set({ namespace: r.namespace, tier: 'sqlite' }, r.durableHits);
        this.set({ namespace: r.namespace, tier: 'miss' }, r.misses);
      }
    },
  });
}

/**
 * The runner every session's MCP server uses: `inner`'s calls, each counted in `pro_context_tool_calls_total`
 * (by tool and outcome) and `pro_context_tool_duration_seconds`, and in its caller's usage.
 */
export function instrumentRunner(
  inner: ToolRunner,
  metrics: HostMetrics,
  usage: UsageRecorder | undefined,
): ToolRunner {
  return {
    get tools() {
      return inner.tools;
    },
    definition: (name) => inner.definition(name),
    async call(name, args, callOptions = {}) {
      const started = performance.now();
      const outcome = await inner.call(name, args, callOptions);
      const known = inner.definition(name) ? name : 'unknown';
      metrics.toolCalls.inc({ tool: known, outcome: outcome.ok ? 'ok' : String(outcome.error.code) });
      metrics.toolDuration.observe({ tool: known }, (performance.now() - started) / 1000);
      const keyId = callOptions.caller?.clientId;
      if (keyId && usage) usage.toolCall(keyId, known, !outcome.ok);
      return outcome;
    },
  };
}
