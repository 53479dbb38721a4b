import { isSecretKey } from '@pro-context/kernel';

/** The string values under secret-named keys of a configuration object (deep, bounded). */
export function collectSecrets(value: unknown, depth = 0, out: string[] = []): string[] {
  if (value === null || typeof value !== 'object' || depth > 12) return out;
  if (Array.isArray(value)) {
    for (const item of value) collectSecrets(item, depth + 1, out);
    return out;
  }
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    if (typeof item === 'string') {
      if (isSecretKey(key)) out.push(item);
    } else if (isSecretKey(key) && item !== null && typeof item === 'object' && !Array.isArray(item)) {
      // `headers: { authorization: … }` under `credentials`, or a `secrets` map: every string in it
      for (const inner of Object.values(item)) if (typeof inner === 'string') out.push(inner);
      collectSecrets(item, depth + 1, out);
    } else collectSecrets(item, depth + 1, out);
  }
  return out;
}
