import { isSecretKey, type PluginDefinition, ProContextError } from '@pro-context/kernel';
import semver from 'semver';

const PLUGIN_ID = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;
const CONFIG_KEY = /^[a-zA-Z][a-zA-Z0-9]*(\.[a-zA-Z][a-zA-Z0-9]*)*$/;
const VARIABLE = /^[A-Z][A-Z0-9_]*$/;
/** Whether logs mask the last part of a dotted key (`token`, `apiKey`…). */
const isRedactedKey = (key: string) => isSecretKey(key.slice(key.lastIndexOf('.') + 1));

/** Throws `PLUGIN_INVALID` unless `value` looks like a plugin definition. */
export function assertPluginShape(value: unknown, where: string): asserts value is PluginDefinition<unknown> {
  const fail = (problem: string): never => {
    throw new ProContextError('PLUGIN_INVALID', `${where}: ${problem}`, {
      suggestion: 'Create plugins with definePlugin({ id, kernel, register }) from @pro-context/kernel.',
    });
  };
  if (value === null || typeof value !== 'object')
    fail(`expected a plugin object, got ${value === null ? 'null' : typeof value}.`);
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
  if (plugin.background !== undefined && typeof plugin.background !== 'function')
    fail(`plugin '${id}': background must be a function.`);
  for (const key of ['provides', 'needs'] as const) {
    const tokens = plugin[key];
    if (tokens !== undefined && (!Array.isArray(tokens) || tokens.some((t) => typeof t !== 'symbol')))
      fail(`plugin '${id}': ${key} must be an array of tokens (createToken(…)).`);
  }
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
  for (const { variable, key, secret } of declared.environment ?? []) {
    if (!VARIABLE.test(variable) || !CONFIG_KEY.test(key)) {
      fail(`plugin '${id}': environment variable ${variable} must be UPPER_CASE and set a dotted config key.`);
    }
    if (secret && !isRedactedKey(key))
      fail(`plugin '${id}': secret ${variable} sets '${key}', a key logs do not mask.`);
  }
  for (const section of declared.configSections ?? []) {
    if (!CONFIG_KEY.test(section?.key) || typeof section.schema?.safeParse !== 'function') {
      fail(`plugin '${id}': configSections takes sections made with defineConfigSection(key, schema).`);
    }
  }
  for (const [code, d] of Object.entries(declared.errors ?? {})) {
    if (!VARIABLE.test(code) || typeof d?.recoverable !== 'boolean' || typeof d.suggestion !== 'string') {
      fail(`plugin '${id}': error ${code} must be an UPPER_CASE code with { recoverable, suggestion, message? }.`);
    }
  }
}
