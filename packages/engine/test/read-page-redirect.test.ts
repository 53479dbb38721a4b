import type { StartedKernel } from '@pro-context/kernel';
import { catalogErrorOf, createTestKernel, type LoopbackSite, startLoopbackSite } from '@pro-context/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { docsEngineToken, enginePlugin } from '../src/index.js';

// Two loopback servers: `docs` is in the read-page allowlist, `inner` plays an internal host that is not.

const secret = '# Instance metadata\n\naws_secret_access_key = do-not-leak-this\n';
const page = '# Moved page\n\nThe page that lives at its new address, with enough text to count as content.\n';

let docs: LoopbackSite;
let inner: LoopbackSite;
let kernel: StartedKernel | undefined;

beforeAll(async () => {
  inner = await startLoopbackSite((path, res) => {
    if (path === '/metadata') res.writeHead(200, { 'content-type': 'text/markdown' }).end(secret);
    else res.writeHead(404).end();
  });
  docs = await startLoopbackSite((path, res) => {
    if (path === '/escape') res.writeHead(302, { location: `${inner.origin}/metadata` }).end();
    else if (path === '/twin.md') res.writeHead(302, { location: `${inner.origin}/metadata` }).end();
    else if (path === '/twin') res.writeHead(200, { 'content-type': 'text/markdown' }).end(page);
    else if (path === '/old') res.writeHead(301, { location: '/new.md' }).end();
    else if (path === '/new.md') res.writeHead(200, { 'content-type': 'text/markdown' }).end(page);
    else res.writeHead(404).end();
  });
});

afterEach(async () => {
  await kernel?.stop();
  kernel = undefined;
  docs.hits.length = 0;
  inner.hits.length = 0;
});

afterAll(async () => {
  await Promise.all([docs.close(), inner.close()]);
});

async function engine() {
  kernel = await createTestKernel({
    plugins: [enginePlugin],
    // loopback is reachable (the network guard is off), so only the allowlist stands between the two hosts
    config: { security: { allowPrivateNetwork: true, urlAllowlist: [`${docs.origin}/`] } },
  });
  return kernel.resolve(docsEngineToken);
}

describe('read-page holds every redirect hop to the allowlist', () => {
  it('refuses the internal host when asked for it directly', async () => {
    const error = await catalogErrorOf((await engine()).readPage(`${inner.origin}/metadata`, 2000, 0));
    expect(error.code).toBe('URL_NOT_ALLOWED');
    expect(inner.hits).toEqual([]);
  });

  it('refuses an allowlisted page that redirects to a host outside the allowlist, without fetching it', async () => {
    const error = await catalogErrorOf((await engine()).readPage(`${docs.origin}/escape`, 2000, 0));
    expect(error.code).toBe('URL_NOT_ALLOWED');
    expect(error.message).toBe(
      `${docs.origin}/escape redirects to ${inner.origin}/metadata, and ${new URL(inner.origin).host} is not in the read-page allowlist.`,
    );
    expect(error.details).toMatchObject({ redirect: `${inner.origin}/metadata` });
    expect(inner.hits).toEqual([]);
  });

  it('skips a .md variant that redirects off the allowlist and reads the page itself', async () => {
    const slice = await (await engine()).readPage(`${docs.origin}/twin`, 2000, 0);
    expect(slice.url).toBe(`${docs.origin}/twin`);
    expect(slice.content).toContain('lives at its new address');
    expect(docs.hits).toEqual(['/twin.md', '/twin']);
    expect(inner.hits).toEqual([]);
  });

  it('still follows a redirect that stays inside the allowlist, and reports the final URL', async () => {
    const slice = await (await engine()).readPage(`${docs.origin}/old`, 2000, 0);
    expect(slice.url).toBe(`${docs.origin}/new.md`);
    expect(slice.title).toBe('Moved page');
    expect(slice.content).toContain('lives at its new address');
  });
});
