import type { AnswerRevisions } from '@pro-context/kernel';

/** The kernel's in-process {@link AnswerRevisions} counter (bound as `kernelTokens.revisions`). */
export function createAnswerRevisions(): AnswerRevisions {
  let revision = 0;
  const listeners = new Set<(revision: number, reason: string) => void>();
  return {
    current: () => revision,
    bump(reason) {
      revision += 1;
      for (const listener of listeners) listener(revision, reason);
    },
    onBump(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
