import { describe, expect, it } from 'vitest';
import { definePlugin, errorCatalog, kernelErrors } from '../src/index.js';

describe('environment variables declared by plugins', () => {
  it('must set a key logs mask when secret', () => {
    expect(() =>
      definePlugin({
        id: 'leaky',
        kernel: '*',
        environment: [{ variable: 'LEAKY_KEY', key: 'leaky.value', secret: true }],
        register() {},
      }),
    ).toThrow(/secret LEAKY_KEY sets 'leaky.value', a key logs do not mask/);
  });
});

describe('error codes of the kernel', () => {
  it('include the kernel’s templates, which give the messages it always gave', () => {
    expect(errorCatalog.PLUGIN_DUPLICATE_ID.message).toBe("Plugin '{plugin}' is registered twice.");
    const error = kernelErrors.create('TOPIC_NOT_FOUND', { library: 'Zod', version: '3.22.4', topic: 'brands' });
    expect(error.message).toBe("Nothing in the Zod 3.22.4 documentation matches 'brands'.");
    expect(error.suggestion).toBe(errorCatalog.TOPIC_NOT_FOUND.suggestion);
  });
});
