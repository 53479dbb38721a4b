import { describe, expect, it } from 'vitest';
import { ProContextError, REDACTED, redaction, registerSecrets } from '../src/index.js';

describe('the kernel without @pro-context/logging', () => {
  it('error payloads still mask registered secrets and secret-named details (the fallback redaction)', () => {
    registerSecrets(['kernel-only-secret-8f3a2c']);
    const payload = new ProContextError('SOURCE_UNAVAILABLE', 'upstream refused kernel-only-secret-8f3a2c', {
      suggestion: 'Check kernel-only-secret-8f3a2c.',
      details: { apiKey: 'short', nested: { note: 'kernel-only-secret-8f3a2c again' } },
    }).toPayload();
    expect(JSON.stringify(payload)).not.toContain('kernel-only-secret-8f3a2c');
    expect(payload.message).toBe(`upstream refused ${REDACTED}`);
    expect(payload.details).toEqual({ apiKey: REDACTED, nested: { note: `${REDACTED} again` } });
    expect(redaction().text('no secret here')).toBe('no secret here');
  });
});
