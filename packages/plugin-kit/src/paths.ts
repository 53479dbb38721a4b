import { homedir } from 'node:os';
import { resolve } from 'node:path';

/** Expands a leading `~` to the home directory (a configured cache or index directory). */
export function expandHome(path: string): string {
  return path === '~' ? homedir() : path.startsWith('~/') ? resolve(homedir(), path.slice(2)) : path;
}
