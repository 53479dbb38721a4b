import type { ResolvedConfig } from '../config/types.js';
import type { HttpClient } from '../http/types.js';
import type { UrlAllowlist } from '../util/allowlist.js';
import type { EventBus } from '../util/events.js';
import type { AnswerRevisions } from './answer-revisions.js';
import type { Logger } from './logger.js';
import { createToken } from './token.js';

/**
 * Services every kernel provides to plugins. Inject them by token:
 * `constructor(@inject(kernelTokens.http) private readonly http: HttpClient) {}`.
 */
export const kernelTokens = {
  config: createToken<ResolvedConfig>('kernel.config'),
  /** The guarded HTTP client: the only way to reach the network. */
  http: createToken<HttpClient>('kernel.http'),
  /** The root logger: the one given to `createKernel`, or built by its `createLogger` (else it logs nothing). */
  logger: createToken<Logger>('kernel.logger'),
  allowlist: createToken<UrlAllowlist>('kernel.allowlist'),
  events: createToken<EventBus>('kernel.events'),
  /** The answer revision counter: bumped when anything an answer may come from changed. */
  revisions: createToken<AnswerRevisions>('kernel.revisions'),
} as const;
