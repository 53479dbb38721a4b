/** Dotted paths into configuration values. */

/** Reads `path` (dotted) from `source`. */
export function getPath(source: unknown, path: string): unknown {
  let node = source;
  for (const part of path.split('.')) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

/**
 * The line in the configuration file of `path`'s key, or of the nearest enclosing key the file has (the section a
 * missing key belongs in); undefined when none is known.
 */
export function lineOf(lines: ReadonlyMap<string, number> | undefined, path: string): number | undefined {
  if (!lines) return undefined;
  for (let p = path; p; p = p.slice(0, Math.max(p.lastIndexOf('.'), 0))) {
    const line = lines.get(p);
    if (line !== undefined) return line;
  }
  return undefined;
}
