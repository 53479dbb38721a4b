/** A markdown document split into its front matter and the rest. */
export interface FrontMatterSplit {
  /** The `title:` of the front matter, if it has one. */
  title?: string;
  /** The `description:` of the front matter, if it has one. */
  description?: string;
  /** The document without its front matter. */
  body: string;
}

// YAML (`---`) or TOML (`+++`) front matter, only at the very start of the document.
const FRONT_MATTER = /^(?:\uFEFF)?(---|\+\+\+)[ \t]*\r?\n([\s\S]*?)\r?\n\1[ \t]*(?:\r?\n|$)/;

/**
 * Splits YAML or TOML front matter off a markdown document and reads its `title` and `description`.
 * Only simple scalar values are read; a full YAML parser would be overkill for two keys.
 */
export function splitFrontMatter(markdown: string): FrontMatterSplit {
  const m = FRONT_MATTER.exec(markdown);
  if (!m) return { body: markdown.replace(/^\uFEFF/, '') };
  const block = m[2] as string;
  const result: FrontMatterSplit = { body: markdown.slice(m[0].length) };
  const title = scalar(block, 'title');
  if (title) result.title = title;
  const description = scalar(block, 'description');
  if (description) result.description = description;
  return result;
}

function scalar(block: string, key: string): string | undefined {
  const m = new RegExp(`^${key}[ \\t]*[:=][ \\t]*(.*)$`, 'm').exec(block);
  if (!m) return undefined;
  let value = (m[1] as string).trim();
  if ((value.startsWith('"') && value.endsWith('"')) || (value.startsWith("'") && value.endsWith("'"))) {
    value = value.slice(1, -1);
  }
  // Block scalars (`>`/`|`) and empty values carry no usable single-line title.
  if (!value || value === '>' || value === '|' || value === '>-' || value === '|-') return undefined;
  return value;
}
