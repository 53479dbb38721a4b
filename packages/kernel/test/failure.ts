import { isProContextError, type ProContextError } from '../src/index.js';

/**
 * The catalog error a request rejects with (the kernel's own copy of @pro-context/testing's
 * `catalogErrorOf`: the kernel cannot depend on the testing package, which depends on it).
 */
export async function failure(promise: Promise<unknown>): Promise<ProContextError> {
  try {
    await promise;
  } catch (error) {
    if (isProContextError(error)) return error;
    throw error;
  }
  throw new Error('expected the request to fail');
}
