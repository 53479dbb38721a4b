import { type AnyPlugin, kernelErrors, ProContextError, type Resolver, type Token, tokenId } from '@pro-context/kernel';

/** The plugins that may provide a token: those declaring it in `provides`. */
function declaredProviders(plugins: readonly AnyPlugin[], token: Token<unknown>): AnyPlugin[] {
  return plugins.filter((p) => p.provides?.includes(token));
}

/**
 * Orders plugins so each starts after the plugins it depends on: its `dependsOn`, and the plugins that declare
 * (`provides`) a token it `needs`. Registration order otherwise.
 */
export function startOrder(plugins: readonly AnyPlugin[]): AnyPlugin[] {
  const byId = new Map(plugins.map((p) => [p.id, p]));
  const done = new Set<string>();
  const out: AnyPlugin[] = [];
  const before = (plugin: AnyPlugin): AnyPlugin[] => [
    ...(plugin.dependsOn ?? []).flatMap((dep) => byId.get(dep) ?? []),
    ...(plugin.needs ?? []).flatMap((token) => declaredProviders(plugins, token)).filter((p) => p !== plugin),
  ];
  const visit = (plugin: AnyPlugin, trail: string[]) => {
    if (done.has(plugin.id)) return;
    if (trail.includes(plugin.id)) {
      throw new ProContextError(
        'PLUGIN_DEPENDENCY_MISSING',
        `Plugins depend on each other in a cycle: ${[...trail, plugin.id].join(' -> ')}.`,
        { suggestion: 'Break the cycle: a plugin cannot (indirectly) depend on itself.' },
      );
    }
    for (const target of before(plugin)) visit(target, [...trail, plugin.id]);
    done.add(plugin.id);
    out.push(plugin);
  };
  for (const plugin of plugins) visit(plugin, []);
  return out;
}

/** Every `dependsOn` names a plugin that was added: else `PLUGIN_DEPENDENCY_MISSING`, before anything registers. */
export function checkDependencies(plugins: readonly AnyPlugin[]): void {
  const ids = new Set(plugins.map((p) => p.id));
  for (const plugin of plugins) {
    for (const dep of plugin.dependsOn ?? []) {
      if (ids.has(dep)) continue;
      throw kernelErrors.create(
        'PLUGIN_DEPENDENCY_MISSING',
        { dependency: dep, plugin: plugin.id },
        { suggestion: `Add the '${dep}' plugin with kernel.use(…) (before or after '${plugin.id}').` },
      );
    }
  }
}

/**
 * Every token a plugin `needs` is bound once all registered: else `PLUGIN_DEPENDENCY_MISSING` naming the
 * plugin, the token and the plugins that declare it (which were not added, or bound nothing with their options).
 */
export function checkNeeds(plugins: readonly AnyPlugin[], resolver: Resolver): void {
  for (const plugin of plugins) {
    for (const token of plugin.needs ?? []) {
      if (resolver.isBound(token)) continue;
      const declared = declaredProviders(plugins, token).map((p) => `'${p.id}'`);
      throw new ProContextError(
        'PLUGIN_DEPENDENCY_MISSING',
        `Plugin '${plugin.id}' needs '${tokenId(token)}', which no plugin provides${declared.length > 0 ? ` (${declared.join(', ')} declares it but bound nothing: is it turned off?)` : ''}.`,
        {
          suggestion: `Add a plugin that provides '${tokenId(token)}' with kernel.use(…).`,
          details: { plugin: plugin.id, token: tokenId(token) },
        },
      );
    }
  }
}
