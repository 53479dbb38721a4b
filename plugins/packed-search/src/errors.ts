import { defineErrors } from '@pro-context/kernel';

/** The packed-search plugin's error codes. */
export const packedSearchErrors = defineErrors({
  PACKED_SEARCH_WORKER_FAILED: {
    recoverable: true,
    message: 'Building the search index of {library} failed: the index worker {reason}.',
    suggestion: 'Ask again: the next request starts a new index worker. If it keeps failing, raise the memory limit.',
  },
});
