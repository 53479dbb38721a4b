import { isProContextError, type ProContextError } from '@pro-context/kernel';

/**
 * The catalog error `promise` rejects with, for asserting on its code, message and suggestion. Any other
 * rejection is rethrown as is, and a promise that resolves fails the test.
 *
 * @example
 * expect((await catalogErrorOf(engine.getDocs('nope', 'x', undefined, 2000))).code).toBe('LIBRARY_NOT_FOUND');
 */
export async function catalogErrorOf(promise: Promise<unknown>): Promise<ProContextError> {
  try {
    await promise;
  } catch (error) {
    if (isProContextError(error)) return error;
    throw error;
  }
  throw new Error('expected a catalog error (ProContextError), but the promise resolved');
}
