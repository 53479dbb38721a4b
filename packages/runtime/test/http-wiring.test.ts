import {
  createNullLogger,
  createToken,
  definePlugin,
  type HttpClient,
  type HttpClientOptions,
  type HttpResponse,
  inject,
  injectable,
  kernelTokens,
  type Logger,
  ProContextError,
} from '@pro-context/kernel';
import { describe, expect, it } from 'vitest';
import { createKernel } from '../src/index.js';

// no logger given: the kernel's own logs nothing
const silent = {};

/** A client that answers every request with 200 and the URL as its body, recording what it was built with. */
function recordingFactory() {
  const built: { options: HttpClientOptions; logger: Logger }[] = [];
  let closed = 0;
  const factory = (options: HttpClientOptions, logger: Logger): HttpClient => {
    built.push({ options, logger });
    const answer = async (url: string | URL): Promise<HttpResponse> => {
      const body = new TextEncoder().encode(String(url));
      return {
        url: String(url),
        status: 200,
        headers: {},
        body,
        notModified: false,
        redirects: 0,
        text: () => String(url),
        json: <T>() => JSON.parse(String(url)) as T,
      };
    };
    return {
      request: answer,
      get: answer,
      stream: async () => {
        throw new Error('not used by these tests');
      },
      close: async () => {
        closed++;
      },
    };
  };
  return { factory, built, closed: () => closed };
}

async function refusal(promise: Promise<unknown>): Promise<ProContextError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ProContextError);
    return error as ProContextError;
  }
  throw new Error('expected the request to fail');
}

describe('the HTTP client the kernel binds', () => {
  it('is built by the given factory from the http and security config, with httpOptions on top', async () => {
    const { factory, built, closed } = recordingFactory();
    const kernel = await createKernel({
      ...silent,
      config: { http: { timeoutMs: 1234, retries: 0, proxy: false }, security: { allowPrivateNetwork: true } },
      httpOptions: { maxRedirects: 1 },
      createHttpClient: factory,
    }).start();
    expect(built).toHaveLength(1);
    expect(built[0]!.options).toMatchObject({
      timeoutMs: 1234,
      retries: 0,
      proxy: false,
      allowPrivateNetwork: true,
      maxRedirects: 1,
      connectTimeoutMs: 10_000,
    });
    expect(built[0]!.options.userAgent).toMatch(/^pro-context\//);
    expect((await kernel.http.get('https://docs.test/a')).text()).toBe('https://docs.test/a');
    await kernel.stop();
    expect(closed()).toBe(1);
  });

  it('is given the private hosts and ranges security.allowPrivateNetwork lists; a bad entry is a config error', async () => {
    const { factory, built } = recordingFactory();
    const listed = ['docs.corp.example', '*.corp.example', '10.1.0.0/16', '127.0.0.1', 'fd00::/8'];
    const kernel = await createKernel({
      ...silent,
      config: { security: { allowPrivateNetwork: listed } },
      createHttpClient: factory,
    }).start();
    expect(built[0]!.options.allowPrivateNetwork).toEqual(listed);
    await kernel.stop();
    for (const bad of ['10.1.0.0/40', 'http://docs.corp.example', 'docs corp']) {
      const error = await refusal(
        createKernel({
          ...silent,
          config: { security: { allowPrivateNetwork: [bad] } },
          createHttpClient: factory,
        }).start(),
      );
      expect(error.code).toBe('CONFIG_INVALID');
      expect(error.message).toContain('security.allowPrivateNetwork.0: Expected a host name');
    }
  });

  it('is what plugins inject as kernelTokens.http', async () => {
    const { factory } = recordingFactory();
    @injectable()
    class Fetcher {
      constructor(@inject(kernelTokens.http) readonly http: HttpClient) {}
    }
    const fetcherToken = createToken<Fetcher>('test.fetcher');
    const kernel = await createKernel({ ...silent, createHttpClient: factory })
      .use(definePlugin({ id: 'fetcher', kernel: '*', register: (ctx) => ctx.bindClass(fetcherToken, Fetcher) }))
      .start();
    expect(kernel.resolve(fetcherToken).http).toBe(kernel.http);
    await kernel.stop();
  });

  it('prefers a ready client over the factory', async () => {
    const { factory, built } = recordingFactory();
    const ready = recordingFactory().factory({}, createNullLogger());
    const kernel = await createKernel({ ...silent, http: ready, createHttpClient: factory }).start();
    expect(kernel.http).toBe(ready);
    expect(built).toHaveLength(0);
    await kernel.stop();
  });

  it('without one, starts, and fails the first request with a coded error naming @pro-context/http', async () => {
    const kernel = await createKernel(silent).start();
    const error = await refusal(kernel.http.get('https://docs.test/llms.txt'));
    expect(error.code).toBe('PLUGIN_DEPENDENCY_MISSING');
    expect(error.message).toContain('https://docs.test/llms.txt');
    expect(error.message).toContain('@pro-context/http');
    expect(error.suggestion).toContain('createKernel({ createHttpClient })');
    expect((await refusal(kernel.http.request('https://docs.test/', { method: 'HEAD' }))).code).toBe(
      'PLUGIN_DEPENDENCY_MISSING',
    );
    await kernel.stop();
  });
});
