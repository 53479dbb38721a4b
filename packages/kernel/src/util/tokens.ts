/**
 * Estimated token count of a text, used wherever a budget in tokens is enforced (`maxTokens` of
 * `get-docs` and `read-page`, snippets, benchmarks).
 *
 * About four characters per token for English prose and code under common BPE tokenizers; exact
 * counts would need the client's own tokenizer, which the server cannot know.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/** Characters per token assumed by {@link estimateTokens}. */
export const CHARS_PER_TOKEN = 4;

/** The longest prefix length (in characters) that fits `tokens` estimated tokens. */
export function charsForTokens(tokens: number): number {
  return Math.max(0, Math.floor(tokens * CHARS_PER_TOKEN));
}
