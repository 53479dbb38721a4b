import type { KeyStore } from '@pro-context/access';
import { ProContextError } from '@pro-context/kernel';
import { checkAuthorization } from './keys.js';
import type { HostMetrics } from './metrics.js';
import { type Step, sendError } from './respond.js';

const authRequired = () => new ProContextError('AUTH_REQUIRED', 'This server needs an API key.').toPayload();
const authInvalid = () =>
  new ProContextError('AUTH_INVALID', 'The API key is not valid: unknown, malformed or revoked.').toPayload();

/**
 * The API-key step: `Authorization: Bearer pc_…` checked against the `KeyStore` on every request (no cache of
 * key records: a key revoked by any process sharing the store, `pro-context-admin keys revoke` included, is
 * refused on its next request). A missing key gets 401 `AUTH_REQUIRED`, a malformed, unknown or revoked one
 * 401 `AUTH_INVALID`, both with `WWW-Authenticate`. A valid one sets `req.apiKey` and `req.auth` (the caller
 * tool handlers see). Without a store (`auth: 'none'`) every request passes.
 */
export function apiKeyStep(keys: KeyStore | undefined, metrics: HostMetrics): Step {
  if (!keys) return (_req, _res, next) => next();
  return (req, res, next) => {
    checkAuthorization(keys, req.headers.authorization)
      .then((check) => {
        if (!check.ok) {
          const missing = check.reason === 'missing';
          metrics.authFailures.inc({ code: missing ? 'AUTH_REQUIRED' : 'AUTH_INVALID' });
          res.setHeader(
            'WWW-Authenticate',
            missing ? 'Bearer realm="pro-context"' : 'Bearer realm="pro-context", error="invalid_token"',
          );
          sendError(res, 401, missing ? authRequired() : authInvalid());
          return;
        }
        const key = check.record;
        req.apiKey = key;
        req.auth = { token: key.id, clientId: key.id, scopes: [], extra: { keyName: key.name } };
        next();
      })
      .catch(next);
  };
}
