import type { FetchContext, ProContextError } from '@pro-context/kernel';
import { engineMessages } from '../tools/render-errors.js';

/**
 * Runs `run` and waits on it while the source shows signs of life: past `ms` with no progress (a page fetched,
 * an index step), throws a recoverable SOURCE_UNAVAILABLE that says the source timed out (`details.timedOut`).
 * A big library whose pages keep arriving is waited for; a host that accepted the connection and sends nothing
 * is not. The work is not cancelled: it goes on (shared with the next call by the doc store), and its outcome is
 * logged.
 */
export async function withDeadline<T>(
  ms: number,
  run: (context: FetchContext) => Promise<T>,
  what: string,
  context: FetchContext = {},
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let expire: (error: ProContextError) => void = () => undefined;
  const deadline = new Promise<never>((_, reject) => {
    expire = reject;
  });
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => expire(timedOut(what, ms)), ms);
    timer.unref();
  };
  arm();
  const watched: FetchContext = {
    ...context,
    progress: (done, total, message) => {
      arm();
      context.progress?.(done, total, message);
    },
  };
  const work = run(watched);
  // the work's own failure after the deadline is not an unhandled rejection
  work.catch(() => undefined);
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** The error of a source that sent nothing for `ms`. */
function timedOut(what: string, ms: number): ProContextError {
  const seconds = Math.round(ms / 100) / 10;
  return engineMessages.create(
    'TIMED_OUT',
    { what, seconds },
    { retryAfter: 5, details: { timedOut: true, timeoutMs: ms } },
  );
}
