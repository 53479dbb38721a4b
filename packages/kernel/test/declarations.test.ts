import { describe, expect, it } from 'vitest';
import { definePlugin, errorCatalog, kernelErrors } from '../src/index.js';

describe('plugin definitions', () => {
  it('are frozen data; their shape is checked when a kernel adds them (@pro-context/runtime)', () => {
    const plugin = definePlugin({ id: 'Bad Id', kernel: 'not a range', register() {} });
    expect(Object.isFrozen(plugin)).toBe(true);
    expect(plugin.id).toBe('Bad Id');
  });
});

describe('error codes of the kernel', () => {
  it('include the kernel’s templates, which give the messages it always gave', () => {
    const error = kernelErrors.create('TOPIC_NOT_FOUND', { library: 'Zod', version: '3.22.4', topic: 'brands' });
    expect(error.message).toBe("Nothing in the Zod 3.22.4 documentation matches 'brands'.");
    expect(error.suggestion).toBe(errorCatalog.TOPIC_NOT_FOUND.suggestion);
  });
});
