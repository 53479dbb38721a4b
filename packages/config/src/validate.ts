import {
  type AnyPlugin,
  type ConfigIssue,
  type ConfigSource,
  configInvalid,
  type EnvironmentVariable,
  type LibraryDescriptor,
  lineOf,
  ProContextError,
  type ValidatedConfig,
} from '@pro-context/kernel';
import { applyLibrarySettings, settingsDeclarations } from '@pro-context/plugin-kit';
import { declaredConfigSections, parseConfigSections, setPath } from '@pro-context/runtime';
import { applyEnvironment, kernelEnvironment } from './environment.js';
import { guessKey, withGuess } from './guess.js';

/** The kernel's variables and every plugin's; one key per variable. */
function declaredEnvironment(plugins: readonly AnyPlugin[]): (EnvironmentVariable & { owner: string })[] {
  const out = kernelEnvironment.map((v) => ({ ...v, owner: 'the kernel' }));
  for (const plugin of plugins) {
    for (const variable of plugin.environment ?? []) {
      const existing = out.find((v) => v.variable === variable.variable);
      if (existing && (existing.key !== variable.key || existing.type !== variable.type)) {
        throw new ProContextError(
          'CONTRACT_CONFLICT',
          `${variable.variable} sets '${existing.key}' for ${existing.owner} and '${variable.key}' for plugin '${plugin.id}'.`,
          { suggestion: 'Keep one of the two plugins, or give one of the two declarations another name.' },
        );
      }
      if (!existing) out.push({ ...variable, owner: `plugin '${plugin.id}'` });
    }
  }
  return out;
}

const isMapping = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * The bad keys of each library's `sources` settings (`libraries.N.sources.llmsTxt…`, and each
 * `project.libraryOverrides` entry's), checked with the schemas the installed source plugins declare, so they come
 * in the same list as every other bad key rather than once the engine starts (which checks them again, for a
 * kernel started without this validator). Only the bags: the deprecated top-level keys the section's own schema
 * checks, and a bag that is no mapping is the section's issue too.
 */
function librarySettingsIssues(values: Record<string, unknown>, plugins: readonly AnyPlugin[]): ConfigIssue[] {
  const declarations = settingsDeclarations(plugins);
  if (declarations.length === 0) return [];
  const entries: [string, unknown][] = Array.isArray(values.libraries)
    ? values.libraries.map((entry, i) => [`libraries.${i}`, entry])
    : [];
  const overrides = isMapping(values.project) ? values.project.libraryOverrides : undefined;
  if (isMapping(overrides))
    for (const [name, entry] of Object.entries(overrides)) entries.push([`project.libraryOverrides.${name}`, entry]);
  return entries.flatMap(([path, entry]) => {
    if (!isMapping(entry) || !isMapping(entry.sources)) return [];
    const sources = Object.fromEntries(Object.entries(entry.sources).filter(([, bag]) => isMapping(bag)));
    const report = applyLibrarySettings({ sources } as unknown as LibraryDescriptor, declarations);
    return report.issues.map((issue) => ({ path: `${path}.${issue.path}`, message: issue.message }));
  });
}

/** The issue with the line in the file of its key (or of the nearest enclosing key) and the variable that set it. */
function located(source: ConfigSource | undefined, issue: ConfigIssue): ConfigIssue {
  if (!source) return issue;
  const line = lineOf(source.lines, issue.path);
  const set = [...source.fromEnv].find(([key]) => issue.path === key || issue.path.startsWith(`${key}.`));
  return { ...issue, line, variable: set?.[1] };
}

/**
 * The source with the plugins' declared variables applied (the kernel's own were applied by `loadConfig`, with
 * `PRO_CONTEXT_DEBUG` after them), on a copy.
 */
function withPluginEnvironment(
  input: ConfigSource | undefined,
  variables: readonly (EnvironmentVariable & { owner: string })[],
): ConfigSource | undefined {
  if (!input?.env) return input;
  const values = structuredClone(input.values);
  const fromEnv = new Map(input.fromEnv);
  const declaredByPlugins = variables.filter((v) => v.owner !== 'the kernel');
  applyEnvironment(values, input.env, declaredByPlugins, fromEnv, input.overrides);
  return { ...input, values, fromEnv };
}

/**
 * Keys no section claims: inside a reserved section (one the preset knows but no installed plugin declares) a
 * warning, kept as written in `raw`; a third party's section under a reserved one, a warning; anything else an
 * issue. Returns the warnings.
 */
function checkUnclaimed(
  values: Record<string, unknown>,
  claimed: ReadonlySet<string>,
  reserved: ReadonlySet<string>,
  raw: Record<string, unknown>,
  add: (path: string, message: string) => void,
  where: (path: string) => { line?: number; guess?: string },
): string[] {
  const warnings: string[] = [];
  const walk = (node: unknown, prefix: string) => {
    if (!isMapping(node)) return;
    for (const [key, value] of Object.entries(node)) {
      const path = prefix ? `${prefix}.${key}` : key;
      if (claimed.has(path)) continue;
      if ([...claimed].some((c) => c.startsWith(`${path}.`))) {
        if (isMapping(value)) walk(value, path);
        else add(path, 'Expected a mapping of settings');
        continue;
      }
      if ([...reserved].some((k) => k.startsWith(`${path}.`)) && isMapping(value)) {
        walk(value, path);
        continue;
      }
      const { line, guess } = where(path);
      const at = line === undefined ? path : `${path} (line ${line})`;
      if (reserved.has(path)) {
        warnings.push(`${at} is set but no installed plugin reads it.`);
        if (!(path in raw)) setPath(raw, path, value);
        continue;
      }
      // a third-party plugin's section (`sources.internalDocs`): not ours to judge, but worth a word when no
      // installed plugin reads it (a plugin not composed in, or a misspelt name)
      if (prefix !== '' && reserved.has(prefix) && !claimed.has(prefix)) {
        warnings.push(
          `${at} is set but no installed plugin reads it (check the plugin is installed and the name's spelling)${guess ? `: did you mean '${guess}'?` : '.'}`,
        );
        continue;
      }
      add(path, 'Unrecognized key (check its spelling and indentation)');
    }
  };
  walk(values, '');
  return warnings;
}

/**
 * The configuration validator to give `createKernel({ validateConfig })`: validates the values against the
 * kernel's schema, every plugin's `optionsSchema` (at its `configKey`) and `configSections`, after applying the
 * plugins' environment variables. Throws one `CONFIG_INVALID` error listing every bad key with its line in the
 * file or the variable that set it; a key no installed plugin reads is an error, or a warning inside a section a
 * plugin reserved (`reservedSections`).
 */
export function validateConfig(input: ConfigSource | undefined, plugins: readonly AnyPlugin[]): ValidatedConfig {
  const declared = declaredConfigSections(plugins);
  const variables = declaredEnvironment(plugins);
  const source = withPluginEnvironment(input, variables);
  const values = source?.values ?? {};
  const parsed = parseConfigSections(declared, values);
  const issues = [...parsed.issues, ...librarySettingsIssues(values, plugins)].map((issue) => located(source, issue));
  const reserved = new Set(plugins.flatMap((p) => p.reservedSections ?? []));
  const claimed = new Set(declared.map((d) => d.key));
  const warnings = checkUnclaimed(
    values,
    claimed,
    reserved,
    parsed.raw,
    (path, message) => issues.push(located(source, { path, message })),
    (path) => ({ line: source ? lineOf(source.lines, path) : undefined, guess: guessKey(path, declared, reserved) }),
  );
  // the file is named when it holds a bad key: a key missing from a section the environment set up (only
  // PRO_CONTEXT_EMBEDDINGS_URL) is not the file's fault, and the issue's own message names the variable to set
  if (issues.length > 0) {
    // in the file's order (a key set by a variable, which has no line, after those of the file)
    const byLine = (issue: ConfigIssue) => issue.line ?? Number.MAX_SAFE_INTEGER;
    const guessed = issues.map((issue) => withGuess(issue, declared, reserved)).sort((a, b) => byLine(a) - byLine(b));
    throw configInvalid(guessed, guessed.some((issue) => issue.line !== undefined) ? source?.file : undefined);
  }
  const environment = [...(source?.fromEnv ?? [])].map(([key, variable]) => ({
    variable,
    key,
    secret: variables.some((v) => v.variable === variable && v.secret === true),
  }));
  return { raw: parsed.raw, sections: parsed.sections, warnings, ...(source ? { source } : {}), environment };
}
