import { describe, expect, it } from 'vitest';
import { createUrlAllowlist } from '../src/index.js';

describe('allowlist', () => {
  it('allows hosts, wildcard suffixes and URL prefixes, http(s) only', () => {
    const list = createUrlAllowlist([
      { entry: 'docs.pydantic.dev', reason: 'test' },
      { entry: '*.readthedocs.io', reason: 'test' },
      { entry: 'https://example.com/docs/', reason: 'test' },
    ]);
    expect(list.isAllowed('https://docs.pydantic.dev/latest/x')).toBe(true);
    expect(list.isAllowed('https://httpx.readthedocs.io/en/')).toBe(true);
    expect(list.isAllowed('https://readthedocs.io.evil.com/')).toBe(false);
    expect(list.isAllowed('https://example.com/docs/a')).toBe(true);
    expect(list.isAllowed('https://example.com/admin')).toBe(false);
    expect(list.isAllowed('file:///etc/passwd')).toBe(false);
    expect(list.isAllowed('https://user:pw@docs.pydantic.dev/')).toBe(false);
    list.allowHostsOf(['https://docs.langchain.com/x', 'not a url'], 'llms.txt');
    expect(list.isAllowed('https://docs.langchain.com/other')).toBe(true);
  });
});
