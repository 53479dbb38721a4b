import type { LogRecord, SpanEvent } from '@pro-context/kernel';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../src/index.js';

function setup(level: 'debug' | 'info' | 'warn' = 'info') {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({ level, stream: { write: (chunk: string) => lines.push(JSON.parse(chunk)) } });
  return { logger, lines };
}

const msgs = (records: LogRecord[]) => records.map((r) => r.msg);

describe('log scopes', () => {
  it('tags every record written during a call, by any child logger and in work it starts, with its bindings', async () => {
    const { logger, lines } = setup();
    const engine = logger.child({ plugin: 'engine' });
    let background: Promise<void> | undefined;
    await logger.withBindings({ sessionId: 'a' }, async () => {
      await Promise.resolve();
      engine.info('inside');
      background = new Promise((resolve) =>
        setTimeout(() => {
          engine.info('later');
          resolve();
        }, 5),
      );
    });
    engine.info('outside');
    await background;
    expect(lines.map((l) => [l.msg, l.sessionId, l.plugin])).toEqual([
      ['inside', 'a', 'engine'],
      ['outside', undefined, 'engine'],
      ['later', 'a', 'engine'],
    ]);
  });

  it('nests scopes, the inner bindings winning', () => {
    const { logger, lines } = setup();
    logger.withBindings({ sessionId: 'a', request: 1 }, () =>
      logger.withBindings({ sessionId: 'b' }, () => logger.info('x')),
    );
    expect(lines[0]).toMatchObject({ sessionId: 'b', request: 1 });
  });
});

describe('session sinks', () => {
  it("give a session its own records and server-wide ones, never another session's", async () => {
    const { logger } = setup();
    const a: LogRecord[] = [];
    const b: LogRecord[] = [];
    const all: LogRecord[] = [];
    logger.addSink((r) => a.push(r), { sessionId: 'a' });
    logger.addSink((r) => b.push(r), { sessionId: 'b' });
    logger.addSink((r) => all.push(r));
    await Promise.all([
      logger.withBindings({ sessionId: 'a' }, async () => logger.info('query of a')),
      logger.withBindings({ sessionId: 'b' }, async () => logger.info('query of b')),
    ]);
    logger.info('server ready');
    expect(msgs(a)).toEqual(['query of a', 'server ready']);
    expect(msgs(b)).toEqual(['query of b', 'server ready']);
    expect(msgs(all)).toEqual(['query of a', 'query of b', 'server ready']);
  });

  it("have their own level: a sink at debug gets debug records while the stream stays at the logger's level", () => {
    const { logger, lines } = setup('info');
    const debugging: LogRecord[] = [];
    const quiet: LogRecord[] = [];
    const handle = logger.addSink((r) => debugging.push(r), { sessionId: 'a', level: 'debug' });
    logger.addSink((r) => quiet.push(r), { sessionId: 'b' });
    logger.withBindings({ sessionId: 'a' }, () => logger.debug('detail of a'));
    logger.withBindings({ sessionId: 'b' }, () => logger.debug('detail of b'));
    logger.debug('server detail');
    expect(msgs(debugging)).toEqual(['detail of a', 'server detail']);
    expect(quiet).toEqual([]);
    expect(lines).toEqual([]);

    handle.setLevel('warn');
    logger.withBindings({ sessionId: 'a' }, () => {
      logger.info('info of a');
      logger.warn('warning of a');
    });
    expect(msgs(debugging)).toEqual(['detail of a', 'server detail', 'warning of a']);
    expect(lines.map((l) => l.msg)).toEqual(['info of a', 'warning of a']);
    handle.setLevel(undefined);
    logger.info('info again');
    expect(msgs(debugging).at(-1)).toBe('info again');
    expect(logger.level).toBe('info');
  });

  it('build no record when nothing listens at that level', () => {
    const { logger } = setup('info');
    let built = 0;
    const fields = {
      get expensive() {
        built += 1;
        return 'value';
      },
    };
    logger.debug('nobody listens', fields);
    expect(built).toBe(0);
    const remove = logger.addSink(() => undefined, { level: 'debug' });
    logger.debug('a sink listens', fields);
    expect(built).toBe(1);
    remove();
    logger.debug('nobody listens again', fields);
    expect(built).toBe(1);
  });
});

describe('span hooks', () => {
  it('receive every finished span, whatever the level, with its fields, duration and success', async () => {
    const { logger, lines } = setup('warn');
    const spans: SpanEvent[] = [];
    const remove = logger.onSpan((span) => spans.push(span));
    await logger.withBindings({ sessionId: 'a' }, () =>
      logger
        .child({ plugin: 'llms-txt' })
        .span('llms-txt.fetchToc', { url: 'https://x.dev/llms.txt?token=abc' }, (s) => {
          s.set('pages', 3);
        }),
    );
    await expect(
      logger.span('get-docs', { libraryId: 'x' }, () => {
        throw Object.assign(new Error('No library x.'), { code: 'LIBRARY_NOT_FOUND' });
      }),
    ).rejects.toThrow('No library x.');
    remove();
    await logger.span('unobserved', {}, () => undefined);

    expect(lines.map((l) => l.msg)).toEqual(['get-docs']);
    expect(spans).toHaveLength(2);
    expect(spans[0]).toMatchObject({
      name: 'llms-txt.fetchToc',
      success: true,
      fields: { sessionId: 'a', plugin: 'llms-txt', url: 'https://x.dev/llms.txt?token=[REDACTED]', pages: 3 },
    });
    expect(typeof spans[0]?.durationMs).toBe('number');
    expect(spans[1]).toMatchObject({
      name: 'get-docs',
      success: false,
      fields: { libraryId: 'x', errorCode: 'LIBRARY_NOT_FOUND', error: 'No library x.' },
    });
  });

  it('never fail the work they measure', async () => {
    const { logger } = setup();
    logger.onSpan(() => {
      throw new Error('metrics backend down');
    });
    await expect(logger.span('work', {}, () => 42)).resolves.toBe(42);
  });
});
