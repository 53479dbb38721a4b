import {
  configInvalid,
  type LibraryDescriptor,
  type LibraryProvider,
  type LibrarySettingsDeclaration,
  type Logger,
  lineOf,
  type ResolvedConfig,
} from '@pro-context/kernel';
import { applyLibrarySettings, closestName } from '@pro-context/plugin-kit';
import { librariesConfigSection, projectConfigSection } from '../settings.js';

/** A library id made from a name ("Pydantic Settings" → `pydantic-settings`). */
export const slug = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9._/-]+/g, '-')
    .replace(/^-+|-+$/g, '');

/**
 * The configuration's libraries as a {@link LibraryProvider} (priority 0: config wins over every other
 * provider, field by field): `libraries:` and `project.libraryOverrides`. This class is the one place that
 * reads those two sections. Per-source bags are validated by their adapters' schemas here, so a bad key is
 * reported with its path (`libraries.0.sources.llmsTxt.llmsTxtUrl`), and deprecated top-level keys are moved
 * into their bags with a warning naming the new key.
 */
export class ConfigLibraryProvider implements LibraryProvider {
  readonly id = 'config';
  readonly priority = 0;
  private readonly listed: LibraryDescriptor[] = [];
  private readonly patches: Record<string, Partial<LibraryDescriptor>> = {};
  /** What the configuration's libraries should change (deprecated keys, bags no plugin reads), as logged. */
  readonly warnings: string[] = [];

  constructor(config: ResolvedConfig, declarations: readonly LibrarySettingsDeclaration[], logger: Logger) {
    const issues: { path: string; message: string; line?: number }[] = [];
    const read = (entry: LibraryDescriptor, path: string) => {
      const report = applyLibrarySettings(entry, declarations);
      for (const issue of report.issues) {
        const at = `${path}.${issue.path}`;
        const line = lineOf(config.sourceLines, at);
        issues.push({ path: at, message: issue.message, ...(line === undefined ? {} : { line }) });
      }
      const warn = (message: string) => {
        this.warnings.push(message);
        logger.warn(message, { config: config.sourceFile });
      };
      for (const { from, to } of report.deprecated) warn(`${path}.${from} is deprecated: write it as ${path}.${to}.`);
      for (const bag of report.unread) {
        // a misspelt bag (`sources.llmstxt`) is set aside whole: name the line and the bag it was likely meant to be
        const at = `${path}.${bag}`;
        const line = lineOf(config.sourceLines, at);
        const guess = closestName(
          bag.slice('sources.'.length),
          declarations.map((d) => d.key),
        );
        warn(
          `${at}${line === undefined ? '' : ` (line ${line})`} is set but no installed source plugin reads it${guess ? `: did you mean 'sources.${guess}'?` : '.'}`,
        );
      }
      return report.library;
    };
    librariesConfigSection.read(config).forEach((entry, index) => {
      const id = entry.id ?? slug(entry.name);
      this.listed.push(read({ ...entry, id }, `libraries.${index}`));
    });
    for (const [name, override] of Object.entries(projectConfigSection.read(config).libraryOverrides)) {
      // validated as a whole library would be; `id`/`name` are placeholders the patch does not carry
      const { id: _id, ...patch } = read(
        { ...override, id: name, name: override.name ?? name },
        `project.libraryOverrides.${name}`,
      );
      if (override.name === undefined) delete (patch as Partial<LibraryDescriptor>).name;
      this.patches[name] = patch;
    }
    if (issues.length > 0) throw configInvalid(issues, config.sourceFile);
  }

  libraries(): readonly LibraryDescriptor[] {
    return this.listed;
  }

  overrides(): Readonly<Record<string, Partial<LibraryDescriptor>>> {
    return this.patches;
  }
}
