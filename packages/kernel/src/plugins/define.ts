import semver from 'semver';
import type { ConfigSection, EnvironmentVariable } from '../config/sections.js';
import type { ErrorDefinition } from '../errors/catalog.js';
import { ProContextError } from '../errors/pro-context-error.js';
import { REDACTED, redact } from '../logging/redact.js';
import type { PluginDefinition } from './types.js';

const PLUGIN_ID = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;
const CONFIG_KEY = /^[a-zA-Z][a-zA-Z0-9]*(\.[a-zA-Z][a-zA-Z0-9]*)*$/;
const DEFINED = Symbol.for('@pro-context/kernel:plugin');
const VARIABLE = /^[A-Z][A-Z0-9_]*$/;
/** Whether the logger masks a field of this name (`token`, `apiKey`…), checked through the logger itself. */
const isRedactedKey = (key: string) => {
  const name = key.slice(key.lastIndexOf('.') + 1);
  return (redact({ [name]: 'x' }) as Record<string, unknown>)[name] === REDACTED;
};

/**
 * Checks a plugin's shape and returns it frozen. Throws `PLUGIN_INVALID` naming what is wrong.
 * The same check runs again in `kernel.use()`, so a hand-written plugin object gets the same error.
 */
export function definePlugin<O, I = O>(definition: PluginDefinition<O, I>): PluginDefinition<O, I> {
  assertPluginShape(definition, 'definePlugin');
  return Object.freeze(Object.assign(Object.create(null), definition, { [DEFINED]: true }));
}

/** Throws `PLUGIN_INVALID` unless `value` looks like a plugin definition. */
export function assertPluginShape(value: unknown, where: string): asserts value is PluginDefinition<unknown> {
  const fail = (problem: string): never => {
    throw new ProContextError('PLUGIN_INVALID', `${where}: ${problem}`, {
      suggestion: 'Create plugins with definePlugin({ id, kernel, register }) from @pro-context/kernel.',
    });
  };
  if (value === null || typeof value !== 'object') fail(`expected a plugin object, got ${typeof value}.`);
  const plugin = value as Partial<PluginDefinition<unknown>> & { default?: unknown };
  if (plugin.id === undefined && plugin.default !== undefined) {
    fail('got a module namespace; pass its default export (import plugin from "…").');
  }
  if (typeof plugin.id !== 'string' || !PLUGIN_ID.test(plugin.id)) {
    fail(`plugin id ${JSON.stringify(plugin.id)} must be kebab-case, like 'llms-txt'.`);
  }
  const id = plugin.id as string;
  if (typeof plugin.kernel !== 'string' || semver.validRange(plugin.kernel) === null) {
    fail(`plugin '${id}' must declare the kernel versions it supports as a semver range, e.g. kernel: '^0.1.0'.`);
  }
  if (typeof plugin.register !== 'function') fail(`plugin '${id}' has no register(context, options) function.`);
  if (plugin.start !== undefined && typeof plugin.start !== 'function')
    fail(`plugin '${id}': start must be a function.`);
  if (plugin.stop !== undefined && typeof plugin.stop !== 'function') fail(`plugin '${id}': stop must be a function.`);
  if (
    plugin.dependsOn !== undefined &&
    (!Array.isArray(plugin.dependsOn) || plugin.dependsOn.some((d) => typeof d !== 'string'))
  ) {
    fail(`plugin '${id}': dependsOn must be an array of plugin ids.`);
  }
  if (plugin.configKey !== undefined && (typeof plugin.configKey !== 'string' || !CONFIG_KEY.test(plugin.configKey))) {
    fail(`plugin '${id}': configKey ${JSON.stringify(plugin.configKey)} must be a dotted path like 'sources.llmsTxt'.`);
  }
  if (
    plugin.optionsSchema !== undefined &&
    typeof (plugin.optionsSchema as { safeParse?: unknown }).safeParse !== 'function'
  ) {
    fail(`plugin '${id}': optionsSchema must be a zod schema.`);
  }
  const declared = plugin as Partial<PluginDefinition<unknown>>;
  const isKey = (key: unknown) => typeof key === 'string' && CONFIG_KEY.test(key);
  const has = (value: object, field: string, type: string) => typeof (value as Record<string, unknown>)[field] === type;
  const lists: [string, unknown, (entry: object) => boolean][] = [
    [
      'configSections',
      declared.configSections,
      (s) => isKey((s as ConfigSection).key) && has((s as ConfigSection).schema, 'safeParse', 'function'),
    ],
    ['reservedSections', declared.reservedSections, isKey],
    [
      'environment',
      declared.environment,
      (e) => VARIABLE.test(String((e as EnvironmentVariable).variable)) && isKey((e as EnvironmentVariable).key),
    ],
    ['allowlist', declared.allowlist, (a) => has(a, 'entry', 'string') && has(a, 'reason', 'string')],
  ];
  for (const [field, value, valid] of lists) {
    if (value !== undefined && !(Array.isArray(value) && value.every((entry) => entry !== null && valid(entry)))) {
      fail(`plugin '${id}': ${field} is malformed; see its documentation on PluginDefinition.`);
    }
  }
  for (const { variable, key, type, secret } of declared.environment ?? []) {
    if (type !== undefined && !['string', 'number', 'boolean'].includes(type)) {
      fail(`plugin '${id}': ${variable} has type ${JSON.stringify(type)}; use string, number or boolean.`);
    }
    if (secret && !isRedactedKey(key)) {
      fail(
        `plugin '${id}': secret ${variable} sets '${key}', a key logs do not mask (name it token, apiKey, secret…).`,
      );
    }
  }
  for (const [code, d] of Object.entries((declared.errors ?? {}) as Record<string, Partial<ErrorDefinition>>)) {
    if (
      !VARIABLE.test(code) ||
      typeof d?.recoverable !== 'boolean' ||
      typeof d.suggestion !== 'string' ||
      !['undefined', 'string'].includes(typeof d.message)
    ) {
      fail(`plugin '${id}': error ${code} must be an UPPER_CASE code with { recoverable, suggestion, message? }.`);
    }
  }
}
