import { isProContextError, type ProContextError } from '@pro-context/kernel';

/**
 * The catalog error a request rejects with (this package's own copy of @pro-context/testing's
 * `catalogErrorOf`: this package cannot depend on the testing package, which depends on it).
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
