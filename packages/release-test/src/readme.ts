// The agent set-up snippets of the root README, parsed as each agent reads them.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { repoRoot } from './registry.js';

export type Agent = 'claude-code' | 'cursor' | 'windsurf' | 'claude-desktop' | 'vscode' | 'codex';
export const agents: readonly Agent[] = ['claude-code', 'cursor', 'windsurf', 'claude-desktop', 'vscode', 'codex'];

/** A snippet: the agents it is for, stdio or http, and its code block. */
export interface Snippet {
  readonly agents: Agent[];
  readonly transport: 'stdio' | 'http';
  readonly lang: string;
  readonly code: string;
  /** 1-based line of the marker in README.md */
  readonly line: number;
}

/** A local server the agent starts: command, args, env. */
export interface StdioServer {
  readonly command: string;
  readonly args: string[];
  readonly env: Record<string, string>;
}

/**
 * A remote server: its URL and headers as written (with the agent's own variable syntax), or a local bridge
 * command (Claude Desktop's `mcp-remote`).
 */
export interface HttpServer {
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly bridge?: StdioServer;
}

/** The snippets marked `<!-- agent: NAMES stdio|http -->` right before a fenced code block. */
export function readmeSnippets(readme = readFileSync(join(repoRoot, 'README.md'), 'utf8')): Snippet[] {
  const lines = readme.split('\n');
  const snippets: Snippet[] = [];
  for (let i = 0; i < lines.length; i++) {
    const marker = /^<!-- agent: ([a-z -]+) (stdio|http) -->$/.exec(lines[i] as string);
    if (!marker) continue;
    const fence = /^```(\w+)$/.exec(lines[i + 1] ?? '');
    if (!fence) throw new Error(`README.md:${i + 1}: the agent marker is not followed by a fenced code block`);
    const end = lines.indexOf('```', i + 2);
    snippets.push({
      agents: (marker[1] as string).trim().split(/\s+/) as Agent[],
      transport: marker[2] as 'stdio' | 'http',
      lang: fence[1] as string,
      code: lines.slice(i + 2, end).join('\n'),
      line: i + 1,
    });
    i = end;
  }
  return snippets;
}

/** POSIX shell words of one command line: quotes and backslash-newlines; `$VAR` is kept as written. */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let quote: '"' | "'" | undefined;
  const text = line.replace(/\\\n/g, ' ');
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (quote) {
      if (c === quote) quote = undefined;
      else word = (word ?? '') + c;
    } else if (c === '"' || c === "'") {
      quote = c;
      word = word ?? '';
    } else if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (c === '#' && word === undefined) {
      break;
    } else {
      word = (word ?? '') + c;
    }
  }
  if (quote) throw new Error(`unterminated ${quote} in: ${line}`);
  if (word !== undefined) words.push(word);
  return words;
}

/** The server entry named `pro-context` in an agent's configuration (JSON or TOML) or `claude mcp add` line. */
function entryOf(snippet: Snippet): Record<string, unknown> {
  if (snippet.lang === 'json') {
    const config = JSON.parse(snippet.code) as Record<string, Record<string, Record<string, unknown>>>;
    // VS Code names its section `servers`; the others `mcpServers`
    const section = snippet.agents.includes('vscode') ? config.servers : config.mcpServers;
    const entry = section?.['pro-context'];
    if (!entry) throw new Error(`README.md:${snippet.line}: no "pro-context" server in the JSON`);
    return entry;
  }
  if (snippet.lang === 'toml') {
    const config = parseToml(snippet.code) as { mcp_servers?: Record<string, Record<string, unknown>> };
    const entry = config.mcp_servers?.['pro-context'];
    if (!entry) throw new Error(`README.md:${snippet.line}: no [mcp_servers.pro-context] in the TOML`);
    return entry;
  }
  throw new Error(`README.md:${snippet.line}: a ${snippet.lang} snippet is not an agent configuration`);
}

/** `claude mcp add [options] NAME [URL] [-- command args…]` → its parts. */
function claudeMcpAdd(snippet: Snippet): {
  name: string;
  transport: string;
  url?: string;
  headers: string[];
  command: string[];
} {
  const words = shellWords(snippet.code.trim());
  if (words[0] !== 'claude' || words[1] !== 'mcp' || words[2] !== 'add')
    throw new Error(`README.md:${snippet.line}: not a \`claude mcp add\` line`);
  const dash = words.indexOf('--');
  const head = dash === -1 ? words.slice(3) : words.slice(3, dash);
  const command = dash === -1 ? [] : words.slice(dash + 1);
  let transport = 'stdio';
  const headers: string[] = [];
  const positional: string[] = [];
  for (let i = 0; i < head.length; i++) {
    const w = head[i] as string;
    if (w === '--transport' || w === '-t') transport = head[++i] as string;
    else if (w === '--header' || w === '-H') headers.push(head[++i] as string);
    else if (w.startsWith('-')) throw new Error(`README.md:${snippet.line}: unexpected option ${w}`);
    else positional.push(w);
  }
  return { name: positional[0] as string, transport, url: positional[1], headers, command };
}

/** The local server a stdio snippet starts. */
export function stdioServer(snippet: Snippet): StdioServer {
  if (snippet.lang === 'bash') {
    const add = claudeMcpAdd(snippet);
    if (add.name !== 'pro-context' || add.transport !== 'stdio' || add.command.length === 0)
      throw new Error(`README.md:${snippet.line}: expected \`claude mcp add pro-context -- command…\``);
    return { command: add.command[0] as string, args: add.command.slice(1), env: {} };
  }
  const entry = entryOf(snippet);
  if (snippet.agents.includes('vscode') && entry.type !== 'stdio')
    throw new Error(`README.md:${snippet.line}: VS Code needs "type": "stdio"`);
  return {
    command: entry.command as string,
    args: (entry.args as string[]) ?? [],
    env: (entry.env as Record<string, string>) ?? {},
  };
}

/** The remote server an http snippet names. */
export function httpServer(snippet: Snippet): HttpServer {
  if (snippet.lang === 'bash') {
    const add = claudeMcpAdd(snippet);
    if (add.transport !== 'http' || !add.url)
      throw new Error(`README.md:${snippet.line}: expected --transport http URL`);
    const headers = Object.fromEntries(
      add.headers.map((h) => {
        const colon = h.indexOf(':');
        return [h.slice(0, colon).trim(), h.slice(colon + 1).trim()];
      }),
    );
    return { url: add.url, headers };
  }
  const entry = entryOf(snippet);
  if (snippet.lang === 'toml') {
    const headers: Record<string, string> = { ...((entry.http_headers as Record<string, string>) ?? {}) };
    if (entry.bearer_token_env_var) headers.Authorization = `Bearer \${${entry.bearer_token_env_var as string}}`;
    return { url: entry.url as string, headers };
  }
  if (entry.command) {
    // a bridge: `npx -y mcp-remote URL --header "Name:value"`
    const args = (entry.args as string[]) ?? [];
    const url = args.find((a) => /^https?:\/\//.test(a)) as string;
    const headers: Record<string, string> = {};
    args.forEach((a, i) => {
      if (a === '--header') {
        const h = args[i + 1] as string;
        const colon = h.indexOf(':');
        headers[h.slice(0, colon).trim()] = h.slice(colon + 1).trim();
      }
    });
    return {
      url,
      headers,
      bridge: { command: entry.command as string, args, env: (entry.env as Record<string, string>) ?? {} },
    };
  }
  if (snippet.agents.includes('vscode') && entry.type !== 'http')
    throw new Error(`README.md:${snippet.line}: VS Code needs "type": "http"`);
  // Windsurf names the URL of a remote server `serverUrl`; the others `url`
  const url = (snippet.agents.includes('windsurf') ? entry.serverUrl : entry.url) as string;
  return { url, headers: (entry.headers as Record<string, string>) ?? {} };
}

/**
 * Expands an agent's variable syntax in a header value: `$VAR`, `${VAR}`, `${env:VAR}` (Cursor, Windsurf),
 * `${input:ID}` (VS Code's prompted inputs), from `values`. An unknown variable throws.
 */
export function expandVariables(value: string, values: Record<string, string>): string {
  return value.replace(/\$\{(?:env:|input:)?([\w-]+)\}|\$(\w+)/g, (_, braced?: string, bare?: string) => {
    const name = (braced ?? bare) as string;
    const v = values[name];
    if (v === undefined) throw new Error(`no value for the variable ${name} in "${value}"`);
    return v;
  });
}
