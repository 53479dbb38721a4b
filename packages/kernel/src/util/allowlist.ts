/**
 * The `read-page` allowlist (seed 001 §10.1): which hosts an agent may ask pro-context to fetch.
 * Entries are host names (`docs.pydantic.dev`), wildcard suffixes (`*.readthedocs.io`) or exact URL
 * prefixes (`https://example.com/docs/`). The SSRF guard in the HTTP client applies in addition, always.
 */
export interface UrlAllowlist {
  /** Adds an entry, with the reason it was added (`'default'`, `'config'`, `'llms.txt https://…'`). */
  allow(entry: string, reason: string): void;
  /** Adds the host of every URL in `urls` (used for the links of a fetched llms.txt). */
  allowHostsOf(urls: Iterable<string>, reason: string): void;
  /** Whether `url` may be fetched by `read-page`. Only http and https URLs can be allowed. */
  isAllowed(url: string | URL): boolean;
  /** Current entries and why each was added. */
  entries(): { entry: string; reason: string }[];
}
