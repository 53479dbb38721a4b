import type * as z from 'zod';
import { ProContextError } from '../errors/pro-context-error.js';
import type { AnyPlugin } from '../plugins/types.js';
import type { ConfigIssue, ConfigSource } from './types.js';

/** What a {@link ConfigValidator} returns: the configuration validated against the kernel's and the plugins' schemas. */
export interface ValidatedConfig {
  /** Every declared section as validated, at its dotted key (plus what the validator keeps as written). */
  raw: Record<string, unknown>;
  /** Each plugin's validated options from its config section (before explicit `use()` options). */
  sections: Map<string, unknown>;
  /** What is set but read by nobody (keys for plugins that are not installed). */
  warnings: string[];
  /** The values validated: the source's, with the plugins' environment variables applied. */
  source?: ConfigSource;
  /** Every declared environment variable that set a key. */
  environment: { variable: string; key: string; secret: boolean }[];
}

/**
 * Validates the configuration at `start()`, knowing the plugins: `validateConfig` of `@pro-context/config` (the
 * plugins' environment variables, line numbers, keys no section claims). Throws {@link configInvalid}'s error
 * (`CONFIG_INVALID`) or `CONTRACT_CONFLICT`.
 */
export type ConfigValidator = (source: ConfigSource | undefined, plugins: readonly AnyPlugin[]) => ValidatedConfig;

/** Flattens zod issues to `path: message` lines (unrecognized keys become one line per key). */
export function flattenZodIssues(error: z.ZodError, prefix: string): { path: string; message: string }[] {
  const out: { path: string; message: string }[] = [];
  for (const issue of error.issues) {
    const base = [prefix, ...issue.path.map(String)].filter(Boolean).join('.');
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        out.push({
          path: base ? `${base}.${key}` : key,
          message: 'Unrecognized key (check its spelling and indentation)',
        });
      }
    } else {
      out.push({ path: base || '(root)', message: personWording(issue.message) });
    }
  }
  return out;
}

const ARTICLE: Record<string, string> = { array: 'a list', object: 'a mapping', undefined: 'nothing', null: 'null' };
const withArticle = (type: string): string => ARTICLE[type] ?? (/^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`);

/**
 * zod's own sentence for a value of the wrong type, in a person's words ("Invalid input: expected string, received
 * undefined" → "required: expected a string"; "…expected number, received string" → "expected a number, got a
 * string"); any other message (a schema's own, a range) as it is.
 */
function personWording(message: string): string {
  const wrongType = /^Invalid input: expected (\w+), received (\w+)$/.exec(message);
  if (!wrongType) return message;
  const [, expected = '', received = ''] = wrongType;
  return received === 'undefined'
    ? `required: expected ${withArticle(expected)}`
    : `expected ${withArticle(expected)}, got ${withArticle(received)}`;
}

/** The one `CONFIG_INVALID` error listing every bad key, with its line in `file` or the variable that set it. */
export function configInvalid(issues: readonly ConfigIssue[], file?: string): ProContextError {
  const lines = issues.map((issue) => {
    const at = [issue.line ? `line ${issue.line}` : '', issue.variable ? `from ${issue.variable}` : '']
      .filter(Boolean)
      .join(', ');
    return `  - ${issue.path}${at ? ` (${at})` : ''}: ${issue.message}`;
  });
  const where = file ? ` in ${file}` : '';
  return new ProContextError('CONFIG_INVALID', `Invalid configuration${where}:\n${lines.join('\n')}`, {
    suggestion:
      issues.length === 1 ? `Fix ${issues[0]?.path} and start again.` : 'Fix the keys listed and start again.',
    details: { file, issues },
  });
}
