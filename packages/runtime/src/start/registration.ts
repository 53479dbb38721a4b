import {
  type AnyPlugin,
  type Constructor,
  kernelTokens,
  type Logger,
  type PluginRegistrationContext,
  ProContextError,
  type ResolvedConfig,
  type Resolver,
  type Token,
  tokenCardinality,
  tokenId,
} from '@pro-context/kernel';
import { type DependencyContainer, instanceCachingFactory, Lifecycle } from 'tsyringe';

/** Reads a container's bindings; `resolve` of an unbound token is `PLUGIN_DEPENDENCY_MISSING`. */
export function resolverOf(container: DependencyContainer): Resolver {
  return {
    resolve<T>(token: Token<T>): T {
      if (!container.isRegistered(token, false)) {
        throw new ProContextError(
          'PLUGIN_DEPENDENCY_MISSING',
          `Nothing provides '${tokenId(token)}'. Install a plugin that provides it.`,
        );
      }
      return container.resolve<T>(token);
    },
    resolveAll<T>(token: Token<T>): T[] {
      return container.isRegistered(token, false) ? container.resolveAll<T>(token) : [];
    },
    isBound(token) {
      return container.isRegistered(token, false);
    },
  };
}

/** What {@link registerPlugins} binds with. */
export interface Registration {
  config: ResolvedConfig;
  logger: Logger;
  pluginOptions: ReadonlyMap<string, unknown>;
  container: DependencyContainer;
  resolver: Resolver;
}

/**
 * Calls every plugin's `register` in order, binding what it binds. A second provider of a singular contract is
 * `CONTRACT_CONFLICT`; binding after registration ended is `KERNEL_STATE`.
 */
export function registerPlugins(plugins: readonly AnyPlugin[], r: Registration): void {
  const providers = new Map<symbol, string>();
  let frozen = false;
  for (const plugin of plugins) {
    const claim = (token: Token<unknown>) => {
      if (frozen) {
        throw new ProContextError(
          'KERNEL_STATE',
          `Plugin '${plugin.id}' tried to bind '${tokenId(token)}' after registration ended; bind only in register().`,
        );
      }
      if (tokenCardinality(token) !== 'single') return;
      const existing =
        providers.get(token) ?? (Object.values(kernelTokens).includes(token as never) ? 'kernel' : undefined);
      if (existing) {
        throw new ProContextError(
          'CONTRACT_CONFLICT',
          `Contract '${tokenId(token)}' is already provided by plugin '${existing}'; plugin '${plugin.id}' provides it too.`,
        );
      }
      providers.set(token, plugin.id);
    };
    const context: PluginRegistrationContext = {
      pluginId: plugin.id,
      config: r.config,
      logger: r.logger.child({ plugin: plugin.id }),
      bindValue(token, value) {
        claim(token);
        r.container.register(token, { useValue: value });
      },
      bindClass<T>(token: Token<T>, implementation: Constructor<T>) {
        claim(token);
        r.container.register<T>(token, { useClass: implementation }, { lifecycle: Lifecycle.ContainerScoped });
      },
      bindFactory(token, factory) {
        claim(token);
        r.container.register(token, { useFactory: instanceCachingFactory(() => factory(r.resolver)) });
      },
    };
    plugin.register(context, r.pluginOptions.get(plugin.id));
  }
  frozen = true;
}
