import { afterEach, describe, expect, it } from 'vitest';
import { pipeline, type Step, sendRpcError } from '../src/respond.js';
import { rawRequest, serveHandler } from './helpers.js';

const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe('pipeline (respond.ts)', () => {
  it('runs the steps in order, stops at the one that answers, and answers 500 for an error handed to next', async () => {
    const ran: string[] = [];
    const errors: unknown[] = [];
    const step =
      (name: string, act?: 'answer' | 'fail' | 'later'): Step =>
      (req, res, next) => {
        ran.push(name);
        if (act === 'answer') return sendRpcError(res, 418, -32000, `answered by ${name}`);
        if (act === 'fail') return next(new Error(`${name} broke`));
        if (act === 'later') return void setTimeout(() => next(), 5);
        if (name === 'c') return void res.end(`done ${req.method}`);
        next();
      };
    const handler = pipeline([step('a'), step('b', 'later'), step('c'), step('d')], (error) => errors.push(error));
    const answering = pipeline([step('x'), step('y', 'answer'), step('z')], (error) => errors.push(error));
    const failing = pipeline([step('f', 'fail'), step('g')], (error) => errors.push(error));
    const server = await serveHandler((req, res) => {
      if (req.url === '/answer') return answering(req, res);
      if (req.url === '/fail') return failing(req, res);
      handler(req, res);
    });
    servers.push(server);
    const base = new URL(server.url.origin);

    expect((await rawRequest(base, { method: 'GET' })).body).toBe('done GET');
    expect(ran).toEqual(['a', 'b', 'c']);

    ran.length = 0;
    const answered = await rawRequest(new URL('/answer', base), { method: 'GET' });
    expect([answered.status, JSON.parse(answered.body).error.message]).toEqual([418, 'answered by y']);
    expect(ran).toEqual(['x', 'y']);

    ran.length = 0;
    const failed = await rawRequest(new URL('/fail', base), { method: 'GET' });
    expect([failed.status, JSON.parse(failed.body).error]).toEqual([
      500,
      { code: -32603, message: 'Internal server error' },
    ]);
    expect(ran).toEqual(['f']);
    expect(String(errors[0])).toContain('f broke');
  });
});
