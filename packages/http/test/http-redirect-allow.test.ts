import http from 'node:http';
import type { AddressInfo, LookupFunction } from 'node:net';
import type { HttpClient } from '@pro-context/kernel';
import { ProContextError } from '@pro-context/kernel';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createHttpClient } from '../src/client.js';
import { failure } from './failure.js';

// Two host names for one loopback server; names resolve through this table, never through real DNS.
const testLookup: LookupFunction = (hostname, options, callback) => {
  if (hostname !== 'docs.test' && hostname !== 'other.test') {
    callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
    return;
  }
  if (options.all) callback(null, [{ address: '127.0.0.1', family: 4 }]);
  else callback(null, '127.0.0.1', 4);
};

let server: http.Server;
let port = 0;
const hits: string[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    hits.push(`${req.headers.host}${req.url}`);
    if (req.url === '/start') res.writeHead(302, { location: `http://other.test:${port}/middle` }).end();
    else if (req.url === '/middle') res.writeHead(301, { location: '/end' }).end();
    else if (req.url === '/end') res.writeHead(200, { 'content-type': 'text/plain' }).end('the end');
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

let client: HttpClient;
afterEach(async () => {
  hits.length = 0;
  await client?.close();
});

function makeClient(): HttpClient {
  client = createHttpClient({ lookup: testLookup, proxy: false, allowPrivateNetwork: true, retries: 0 });
  return client;
}

describe('allowUrl: a per-request check of every redirect hop', () => {
  it('is asked about each redirect target, not the first URL, and the request goes through when it allows them', async () => {
    const asked: string[] = [];
    const hops: string[] = [];
    const response = await makeClient().get(`http://docs.test:${port}/start`, {
      allowUrl: (url, hop) => {
        asked.push(url.href);
        hops.push(`${hop.status} from ${hop.from.href}`);
      },
    });
    expect(response.status).toBe(200);
    expect(response.text()).toBe('the end');
    expect(asked).toEqual([`http://other.test:${port}/middle`, `http://other.test:${port}/end`]);
    // each hop with the redirect's status and where it came from (a POST's 301/302/303 can be refused)
    expect(hops).toEqual([`302 from http://docs.test:${port}/start`, `301 from http://other.test:${port}/middle`]);
  });

  it('refuses a hop before fetching it, passing the caller’s catalog error through', async () => {
    const error = await failure(
      makeClient().get(`http://docs.test:${port}/start`, {
        allowUrl: (url) => {
          if (url.hostname !== 'docs.test') {
            throw new ProContextError('URL_NOT_ALLOWED', `${url.host} is not in the read-page allowlist.`);
          }
        },
      }),
    );
    expect(error.code).toBe('URL_NOT_ALLOWED');
    expect(error.message).toBe(`other.test:${port} is not in the read-page allowlist.`);
    // the refused target was never contacted
    expect(hits).toEqual([`docs.test:${port}/start`]);
  });

  it('turns any other thrown error into URL_NOT_ALLOWED naming the redirect', async () => {
    const error = await failure(
      makeClient().get(`http://docs.test:${port}/start`, {
        allowUrl: () => {
          throw new Error('not on my list.');
        },
      }),
    );
    expect(error.code).toBe('URL_NOT_ALLOWED');
    expect(error.message).toBe(`Refused the redirect from docs.test:${port} to other.test:${port}: not on my list.`);
    expect(error.details).toMatchObject({ to: `http://other.test:${port}/middle` });
    expect(hits).toEqual([`docs.test:${port}/start`]);
  });
});
