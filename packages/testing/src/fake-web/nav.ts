// Readers for the navigation of real doc sites: mkdocs `nav:`, VitePress `sidebar`, fumadocs `meta.json`.
// `yaml` does not resolve from this package, and only the small `nav:` subset of YAML is needed, so the
// readers are hand-written and tolerant: anything they do not understand is skipped, never thrown.

/** A page of a site's navigation; `target` is a docs-relative file (`a/b.md`) or a site link (`/a/b`). */
export interface NavPage {
  readonly kind: 'page';
  readonly title: string | undefined;
  readonly target: string;
}

/** A titled group of pages (the title may be empty: mkdocs then takes it from the section's index page). */
export interface NavSection {
  readonly kind: 'section';
  readonly title: string;
  readonly children: NavNode[];
}

/** A node of a navigation tree. */
export type NavNode = NavPage | NavSection;

function unquote(raw: string): string {
  const s = raw.trim();
  if (s.length >= 2 && s.startsWith("'") && s.endsWith("'")) return s.slice(1, -1).replace(/''/g, "'");
  if (s.length >= 2 && s.startsWith('"') && s.endsWith('"')) {
    return s.slice(1, -1).replace(/\\(["\\/])/g, '$1');
  }
  return s;
}

function stripComment(s: string): string {
  // A `#` starts a comment only outside quotes and after whitespace (YAML rule).
  let quote: string | undefined;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === "'" || c === '"') {
      quote = c;
    } else if (c === '#' && (i === 0 || s[i - 1] === ' ')) {
      return s.slice(0, i).trimEnd();
    }
  }
  return s;
}

/** Split `key: value` of a list item at the first unquoted `: ` (or a trailing `:`). */
function splitKey(item: string): { key: string; value: string } | undefined {
  const s = item.trim();
  if (s.startsWith('"') || s.startsWith("'")) {
    const q = s[0] as string;
    let i = 1;
    while (i < s.length) {
      if (s[i] === q) {
        if (q === "'" && s[i + 1] === "'") {
          i += 2;
          continue;
        }
        break;
      }
      if (q === '"' && s[i] === '\\') i++;
      i++;
    }
    const rest = s.slice(i + 1).trimStart();
    if (!rest.startsWith(':')) return undefined;
    return { key: unquote(s.slice(0, i + 1)), value: rest.slice(1).trim() };
  }
  const m = /^(.*?):(?:\s+(.*))?$/.exec(s);
  if (!m || /^[a-z][a-z0-9+.-]*:\/\//i.test(s)) return undefined;
  return { key: (m[1] ?? '').trim(), value: (m[2] ?? '').trim() };
}

/** Parse the `nav:` block of an mkdocs.yml. Returns `[]` when there is none. */
export function parseMkdocsNav(yamlText: string): NavNode[] {
  const lines = yamlText.split(/\r?\n/);
  const start = lines.findIndex((l) => /^nav:\s*(#.*)?$/.test(l));
  if (start < 0) return [];
  const root: NavNode[] = [];
  // Each frame: the list being filled and the indentation of its `-` (unknown until its first item).
  const stack: { indent: number | undefined; items: NavNode[] }[] = [{ indent: undefined, items: root }];
  for (const rawLine of lines.slice(start + 1)) {
    if (/^\s*(#.*)?$/.test(rawLine)) continue;
    const m = /^(\s*)-\s+(.*)$/.exec(rawLine);
    if (!m) {
      if (/^\S/.test(rawLine)) break; // the next top-level key ends the nav block
      continue;
    }
    const indent = (m[1] ?? '').length;
    const body = stripComment(m[2] ?? '');
    while (stack.length > 1) {
      const top = stack[stack.length - 1];
      if (top && top.indent !== undefined && indent < top.indent) stack.pop();
      else break;
    }
    const frame = stack[stack.length - 1];
    if (!frame) break;
    if (frame.indent === undefined) frame.indent = indent;
    const kv = splitKey(body);
    if (!kv) {
      frame.items.push({ kind: 'page', title: undefined, target: unquote(body) });
      continue;
    }
    if (kv.value === '') {
      const section: NavSection = { kind: 'section', title: kv.key, children: [] };
      frame.items.push(section);
      stack.push({ indent: undefined, items: section.children });
    } else {
      frame.items.push({ kind: 'page', title: kv.key || undefined, target: unquote(kv.value) });
    }
  }
  return root;
}

/** Read `site_name` / `site_description` of an mkdocs.yml. */
export function readMkdocsMeta(yamlText: string): { name?: string; description?: string } {
  const get = (key: string): string | undefined => {
    const m = new RegExp(`^${key}:\\s*(.+)$`, 'm').exec(yamlText);
    return m?.[1] ? unquote(stripComment(m[1])) : undefined;
  };
  const out: { name?: string; description?: string } = {};
  const name = get('site_name');
  const description = get('site_description');
  if (name) out.name = name;
  if (description) out.description = description;
  return out;
}

/** Index just past the bracket that closes the one at `open`, skipping strings and comments. */
function matchBracket(src: string, open: number): number {
  let depth = 0;
  for (let i = open; i < src.length; i++) {
    const c = src[i];
    if (c === "'" || c === '"' || c === '`') {
      i = skipString(src, i);
      continue;
    }
    if (c === '/' && src[i + 1] === '/') {
      const nl = src.indexOf('\n', i);
      i = nl < 0 ? src.length : nl;
      continue;
    }
    if (c === '/' && src[i + 1] === '*') {
      const end = src.indexOf('*/', i + 2);
      i = end < 0 ? src.length : end + 1;
      continue;
    }
    if (c === '[' || c === '{' || c === '(') depth++;
    else if (c === ']' || c === '}' || c === ')') {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return src.length;
}

function skipString(src: string, start: number): number {
  const q = src[start];
  for (let i = start + 1; i < src.length; i++) {
    if (src[i] === '\\') i++;
    else if (src[i] === q) return i;
  }
  return src.length;
}

/**
 * Parse the sidebars of a VitePress config.ts: every `sidebar…: [` / `sidebar: {` / `sidebar… = (…) => [`
 * region, where objects with `text` and `link` are pages and objects with `text` and `items` are sections.
 * Links are returned as written (`/docs/api/context`, `/guide/`); the caller drops those it cannot map.
 */
export function parseVitepressSidebar(source: string): NavNode[] {
  const root: NavNode[] = [];
  const starts = /\bsidebar\w*\s*(?::|=\s*(?:\([^)]*\)\s*(?::\s*[\w.[\]<>]+\s*)?=>)?)\s*([[{])/gi;
  let seen = -1;
  for (let m = starts.exec(source); m; m = starts.exec(source)) {
    const open = m.index + m[0].length - 1;
    if (open < seen) continue;
    const end = matchBracket(source, open);
    seen = end;
    parseSidebarRegion(source.slice(open, end), root);
  }
  return root;
}

interface SidebarObject {
  text?: string;
  link?: string;
  hasItems: boolean;
  section?: NavSection;
}

function parseSidebarRegion(region: string, root: NavNode[]): void {
  const token = /(\/\/[^\n]*|\/\*[\s\S]*?\*\/)|\b(text|link)\s*:\s*(['"`])((?:\\.|(?!\3).)*)\3|\b(items)\s*:|([{}])/g;
  const stack: SidebarObject[] = [];
  // The list pages are added to: the nearest enclosing section, else the root.
  const targetList = (): NavNode[] => {
    for (let i = stack.length - 1; i >= 0; i--) {
      const s = stack[i]?.section;
      if (s) return s.children;
    }
    return root;
  };
  for (let m = token.exec(region); m; m = token.exec(region)) {
    if (m[1]) continue;
    const top = stack[stack.length - 1];
    if (m[2] && top) {
      const value = m[4] ?? '';
      if (m[2] === 'text') top.text = value;
      else top.link = value;
    } else if (m[5] && top) {
      top.hasItems = true;
      // Items follow the group's own text/link, so the section opens before its children are read.
      if (top.text !== undefined && !top.section) {
        const list = targetList();
        if (top.link) list.push({ kind: 'page', title: top.text, target: top.link });
        top.section = { kind: 'section', title: top.text, children: [] };
        list.push(top.section);
      }
    } else if (m[6] === '{') {
      stack.push({ hasItems: false });
    } else if (m[6] === '}') {
      const obj = stack.pop();
      if (obj && !obj.hasItems && obj.text !== undefined && obj.link) {
        targetList().push({ kind: 'page', title: obj.text, target: obj.link });
      }
    }
  }
}

/** Parse a fumadocs meta.json: `pages` entries, `---Title---` separators opening sections. */
export function parseFumadocsMeta(json: string): NavNode[] {
  let pages: unknown;
  try {
    pages = (JSON.parse(json) as { pages?: unknown }).pages;
  } catch {
    return [];
  }
  if (!Array.isArray(pages)) return [];
  const root: NavNode[] = [];
  let current: NavNode[] = root;
  for (const entry of pages) {
    if (typeof entry !== 'string') continue;
    const sep = /^---(.*)---$/.exec(entry);
    if (sep) {
      const section: NavSection = { kind: 'section', title: (sep[1] ?? '').trim(), children: [] };
      root.push(section);
      current = section.children;
    } else if (!entry.startsWith('...') && !entry.startsWith('!')) {
      current.push({ kind: 'page', title: undefined, target: entry });
    }
  }
  return root;
}
