import { createRequire } from 'node:module';
import { dirname, isAbsolute, resolve } from 'node:path';
import { projectConfigSection } from '@pro-context/engine/api';
import { definePlugin, libraryProviderToken, type Resolver, sourceAdapterToken } from '@pro-context/kernel';
import { projectDependenciesToken } from '@pro-context/plugin-kit';
import { LocalDocsSourceAdapter } from './adapter.js';
import { InstalledPackages } from './installed.js';
import {
  customSourcesSection,
  type LocalDocsPluginOptions,
  type LocalDocsPluginOptionsInput,
  localDocsErrors,
  localDocsOptionsToken,
  localDocsPluginOptionsSchema,
} from './options.js';
import { CustomSourcesProvider, InstalledPackagesProvider } from './provider.js';

const { version } = createRequire(import.meta.url)('../package.json') as { version: string };

/**
 * The local-docs plugin: documentation read from the local disk, offline. Binds a source adapter (`local-docs`,
 * priority 30) and two library providers: `sources.custom` (seed 001 §8.4) and the project's installed
 * dependencies (following project detection, `@pro-context/plugin-project`, when `project.autoDetect` is on).
 * Options come from the `sources.localDocs` config section.
 */
export const localDocsPlugin = definePlugin<LocalDocsPluginOptions, LocalDocsPluginOptionsInput>({
  id: 'local-docs',
  version,
  description: 'Local documentation: folders of markdown, local llms.txt files, custom sources, installed packages',
  kernel: '^0.1.0',
  dependsOn: ['engine'],
  configKey: 'sources.localDocs',
  optionsSchema: localDocsPluginOptionsSchema,
  configSections: [customSourcesSection],
  errors: localDocsErrors.errors,
  register(context, options) {
    if (!options.enabled) return;
    // relative paths in the configuration are read from the config file's folder
    const baseDir = context.config.sourceFile ? dirname(resolve(context.config.sourceFile)) : process.cwd();
    const installed = new InstalledPackages();
    context.bindValue(localDocsOptionsToken, options);
    context.bindValue(
      sourceAdapterToken,
      new LocalDocsSourceAdapter({
        limits: { maxFiles: options.maxFiles, maxFileBytes: options.maxFileBytes },
        baseDir,
        installed,
      }),
    );
    context.bindValue(
      libraryProviderToken,
      new CustomSourcesProvider(customSourcesSection.read(context.config), baseDir),
    );
    context.bindValue(libraryProviderToken, new InstalledPackagesProvider(installed));
  },
  start(context, options) {
    if (!options.enabled || !options.installedPackages) return;
    const project = projectConfigSection.read(context.config);
    // no project, nothing scanned: installed packages follow project detection, which this switch turns off
    if (!project.autoDetect) return;
    // project detection's dependencies, when it is installed (a service it provides)
    if (!context.isBound(projectDependenciesToken)) return;
    const detection = context.resolve(projectDependenciesToken);
    const root = isAbsolute(project.workingDirectory)
      ? project.workingDirectory
      : resolve(process.cwd(), project.workingDirectory);
    installedProviderOf(context)?.follow(detection, root, {
      ...(project.pythonEnv ? { pythonEnv: project.pythonEnv } : {}),
      logger: context.logger.child({ component: 'local-docs' }),
    });
  },
  async stop(context) {
    await installedProviderOf(context)?.stop();
  },
});

function installedProviderOf(context: Resolver): InstalledPackagesProvider | undefined {
  return context
    .resolveAll(libraryProviderToken)
    .find((p): p is InstalledPackagesProvider => p instanceof InstalledPackagesProvider);
}

export default localDocsPlugin;
