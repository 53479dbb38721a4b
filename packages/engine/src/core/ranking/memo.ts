/** Bound of the memos of ranking's pure functions (results by their input: the same headings on every query). */
const MEMO_ENTRIES = 50_000;

/** Remembers `value` for `key`, clearing a memo that reached `limit` entries. */
export function remember<V>(memo: Map<string, V>, key: string, value: V, limit = MEMO_ENTRIES): void {
  if (memo.size >= limit) memo.clear();
  memo.set(key, value);
}
