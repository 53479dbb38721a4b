import { ProContextError } from '@pro-context/kernel';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../src/index.js';

function capture() {
  const lines: string[] = [];
  const logger = createLogger({ level: 'debug', stream: { write: (chunk: string) => lines.push(chunk) } });
  return { logger, records: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

describe('log spans', () => {
  it('writes one JSON line per span with its fields, what the work added, duration and success', async () => {
    const { logger, records } = capture();
    const result = await logger.span('context7.search', { query: 'react hooks' }, (span) => {
      span.set('resultLen', 42);
      return 'ok';
    });
    expect(result).toBe('ok');
    const [record] = records();
    expect(record).toMatchObject({
      level: 'info',
      span: 'context7.search',
      query: 'react hooks',
      resultLen: 42,
      success: true,
    });
    expect(typeof record?.durationMs).toBe('number');
  });

  it('records a failed span with its error code and rethrows', async () => {
    const { logger, records } = capture();
    await expect(
      logger.span('get-docs', { libraryId: 'x' }, () => {
        throw new ProContextError('LIBRARY_NOT_FOUND', 'No library x.');
      }),
    ).rejects.toThrow('No library x.');
    expect(records()[0]).toMatchObject({
      span: 'get-docs',
      success: false,
      errorCode: 'LIBRARY_NOT_FOUND',
      level: 'warn',
    });
  });

  it('never writes secrets', () => {
    const { logger, records } = capture();
    logger.info('request', {
      githubToken: 'ghp_abcdefghijklmnopqrstuvwxyz0123456789',
      headers: { authorization: 'Bearer sk-live-123456789', accept: 'text/plain' },
      url: 'https://api.example.com/x?api_key=supersecretvalue&page=2',
      note: 'key pc_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcd leaked in text',
      maxTokens: 5000,
    });
    const text = JSON.stringify(records()[0]);
    for (const secret of ['ghp_abcdef', 'sk-live', 'supersecretvalue', 'pc_AbCdEf']) expect(text).not.toContain(secret);
    expect(records()[0]).toMatchObject({ maxTokens: 5000, headers: { accept: 'text/plain' } });
    expect(text).toContain('page=2');
  });

  it('drops records under the level and feeds sinks', () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'warn', stream: { write: (c: string) => lines.push(c) } });
    const seen: string[] = [];
    const remove = logger.addSink((r) => seen.push(r.msg));
    logger.info('hidden');
    logger.warn('shown');
    remove();
    logger.error('after');
    expect(lines).toHaveLength(2);
    expect(seen).toEqual(['shown']);
  });
});
