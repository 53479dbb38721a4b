import { remember } from './memo.js';

/**
 * What a documentation page is, from the path and title conventions of MkDocs, VitePress, Docusaurus, Sphinx
 * and Mintlify sites: `blog` (posts, "Announcing v5"), `changelog` (changelog, history, changes),
 * `release-notes` (release notes, releases, what's new), `migration` (migration and upgrade guides),
 * `troubleshooting` (troubleshooting, FAQ, error pages), `reference` (API, config and rule references), else
 * `guide`.
 */
export type PageKind = 'guide' | 'reference' | 'troubleshooting' | 'migration' | 'release-notes' | 'changelog' | 'blog';

const KIND_RULES: { kind: PageKind; path: RegExp; title: RegExp }[] = [
  {
    kind: 'release-notes',
    path: /(?:^|\/)(?:release[-_]?notes?|releases?|what-?s-?new|whatsnew)(?:[./]|$)/,
    title: /^(?:release notes|releases?\b|what'?s new)|\brelease notes\b/i,
  },
  {
    kind: 'changelog',
    path: /(?:^|\/)(?:change-?log|changes|history|news)(?:[./]|$)/,
    title: /^(?:change-?log|changes\b|history\b|version history|news\b)/i,
  },
  {
    kind: 'blog',
    path: /(?:^|\/)(?:blog|posts|articles)(?:[./]|$)|(?:^|\/)announcing[-_]/,
    title: /^announcing\b|^introducing .*\bv?\d+(?:\.\d+)*\b/i,
  },
  {
    kind: 'migration',
    path: /(?:^|\/)(?:migrat\w*|upgrad\w*)(?:[./]|$)/,
    title: /^(?:migrat|upgrad)\w*\b|\bmigration guide\b/i,
  },
  {
    kind: 'troubleshooting',
    path: /(?:^|\/)(?:troubleshoot\w*|faqs?|errors?|\w+[-_]errors|common[-_](?:issues|errors|problems)|known[-_]issues|debugging)(?:[./]|$)/,
    title:
      /^(?:troubleshoot\w*|faqs?\b|frequently asked|common (?:issues|errors|problems)|known issues|errors?\b|\w+ errors$)/i,
  },
  {
    kind: 'reference',
    path: /(?:^|\/)(?:api|api[-_]reference|reference|references|config|configuration|rules)(?:[./]|$)/,
    title: /^(?:api\b|reference\b|\w+ reference$|configuration$)/i,
  },
];

/** The {@link PageKind} of the page at `url` titled `title`. */
export function pageKind(url: string, title: string): PageKind {
  // asked for every ranked chunk of every query, for the same few pages: kept (bounded like the other memos)
  const key = `${url}\u0001${title}`;
  let kind = pageKinds.get(key);
  if (kind === undefined) {
    kind = kindOfPage(url, title);
    remember(pageKinds, key, kind);
  }
  return kind;
}

const pageKinds = new Map<string, PageKind>();

function kindOfPage(url: string, title: string): PageKind {
  let path = url.split('#')[0] as string;
  if (URL.canParse(path)) path = new URL(path).pathname;
  path = path.toLowerCase().replace(/\/index(?:\.\w+)?$|\/$/, '');
  for (const rule of KIND_RULES) if (rule.path.test(path) || rule.title.test(title.trim())) return rule.kind;
  return 'guide';
}

/** Kinds about the library's history: below guides and reference pages unless the query asks about versions. */
export const HISTORY_KINDS = new Set<PageKind>(['blog', 'changelog', 'release-notes']);

/** A query about versions, changes, releases or news (`what's new in v5`, `breaking changes`, `deprecated`). */
export function asksAboutVersions(query: string): boolean {
  return /\bv\d+(?:\.\d+)*\b|\b\d+\.\d+(?:\.\d+)?\b|\b(?:in|since|from|to|before|after) v?\d{1,2}\b|\b(?:versions?|releases?|released|release notes|change-?logs?|changes|changed|what(?:'?s| is| are) new|new in|news|announc\w*|deprecat\w*|upgrad\w*|migrat\w*|breaking|history|blog)\b/i.test(
    query,
  );
}
