import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type Request, type Response } from 'express';
import { type Step, sendRpcError } from './respond.js';

/** Why a body could not be read: too large (413) or not JSON (400). */
export type BodyError = 'too-large' | 'not-json';

/**
 * Reads a request's JSON body (what `express.json({ type: () => true })` did, minus its per-request stream
 * plumbing, the cost that showed under load): `undefined` when the request has no body, `{}` for an empty
 * one, `too-large` past `limit` bytes (declared or read), `not-json` when it does not parse to an object or
 * an array. The body is decoded as UTF-8. A `Content-Encoding` other than identity is for the caller's
 * fallback (`encoded`).
 */
export function readJsonBody(
  req: IncomingMessage,
  limit: number,
  done: (result: { ok: true; body: unknown } | { ok: false; error: BodyError }) => void,
): 'encoded' | undefined {
  const encoding = req.headers['content-encoding'];
  if (encoding !== undefined && encoding.toLowerCase() !== 'identity') return 'encoded';
  const declared = req.headers['content-length'];
  if (declared === undefined && req.headers['transfer-encoding'] === undefined) {
    done({ ok: true, body: undefined });
    return undefined;
  }
  if (declared !== undefined && Number(declared) > limit) {
    req.resume();
    done({ ok: false, error: 'too-large' });
    return undefined;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  let over = false;
  const onData = (chunk: Buffer) => {
    if (over) return;
    size += chunk.length;
    if (size > limit) {
      over = true;
      chunks.length = 0;
      done({ ok: false, error: 'too-large' });
      return;
    }
    chunks.push(chunk);
  };
  req.on('data', onData);
  req.once('end', () => {
    if (over) return;
    const text = (chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)).toString('utf8');
    const start = text.search(/\S/);
    if (start === -1) {
      done({ ok: true, body: {} });
      return;
    }
    // like body-parser's strict mode: only an object or an array
    const first = text[start];
    if (first !== '{' && first !== '[') {
      done({ ok: false, error: 'not-json' });
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      done({ ok: false, error: 'not-json' });
      return;
    }
    done({ ok: true, body });
  });
  req.once('error', () => {
    if (over) return;
    over = true;
    done({ ok: false, error: 'not-json' });
  });
  return undefined;
}

function bodyError(res: ServerResponse, tooLarge: boolean): void {
  if (tooLarge) {
    res.setHeader('Connection', 'close');
    sendRpcError(res, 413, -32600, 'Request body too large');
  } else sendRpcError(res, 400, -32700, 'Parse error: the body is not JSON');
}

/**
 * The body step: sets `req.body` from {@link readJsonBody} (a compressed body is inflated by Express's
 * `express.json`, with the same limit). Past `maxBodyBytes`: 413 and the connection closed; not JSON: 400.
 */
export function bodyStep(maxBodyBytes: number): Step {
  const json = express.json({ limit: maxBodyBytes, type: () => true });
  return (req, res, next) => {
    const fallback = readJsonBody(req, maxBodyBytes, (result) => {
      if (!result.ok) return bodyError(res, result.error === 'too-large');
      req.body = result.body;
      next();
    });
    if (fallback === 'encoded')
      json(req as Request, res as Response, (error?: unknown) => {
        if (!error) return next();
        bodyError(res, (error as { status?: number }).status === 413);
      });
  };
}
