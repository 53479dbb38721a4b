// Issue #15: answers an agent can trust — through the built stdio server and CLI, against the real corpora
// on loopback. Each block pins what an agent (or a person in a terminal) would notice.
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { FakeWeb } from '@pro-context/testing/fake-web';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliPath, connectStdio, errorOf, skipReason, startCorpusWeb, writeProject } from './helpers.js';

type Connection = Awaited<ReturnType<typeof connectStdio>>;
interface Docs {
  content: string;
  source: string;
  confidence: number;
  relatedPages: { title: string; url: string; description: string }[];
}
interface Search {
  results: { title: string; relevance: number; url: string; section: string }[];
}

/** The corpus project plus libraries only the resolve tests need (none of them is ever fetched). */
function trustProject(web: FakeWeb) {
  const project = writeProject(web);
  const config = JSON.parse(readFileSync(project.configFile, 'utf8')) as { libraries: Record<string, unknown>[] };
  config.libraries.push(
    { id: 'pydantic-ai', name: 'Pydantic AI', language: 'python', aliases: ['pydanticai'], docsUrl: web.url },
    { id: 'pydantic-settings', name: 'Pydantic Settings', language: 'python', docsUrl: web.url },
    { id: 'repo-only', name: 'Repo Only', language: 'python', repository: 'example/repo-only' },
    { id: 'folder-only', name: 'Folder Only', language: 'python', localPath: '/nonexistent/docs' },
  );
  writeFileSync(project.configFile, JSON.stringify(config, null, 2));
  return project;
}

/** The label comments of a get-docs answer with the text under each, up to the next label. */
function labelled(content: string): { label: string; text: string }[] {
  const out: { label: string; text: string }[] = [];
  const re = /<!-- (.*?) — \S+ -->\n/g;
  const starts = [...content.matchAll(re)];
  starts.forEach((m, i) => {
    const end = starts[i + 1]?.index ?? content.length;
    out.push({ label: m[1] as string, text: content.slice((m.index as number) + m[0].length, end) });
  });
  return out;
}

describe.skipIf(skipReason)(`answers an agent can trust (#15)${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  let web: FakeWeb;
  let project: ReturnType<typeof trustProject>;
  let server: Connection;
  const logs: { level: string }[] = [];

  beforeAll(async () => {
    web = await startCorpusWeb();
    project = trustProject(web);
    server = await connectStdio(project.configFile);
    server.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
  });

  afterAll(async () => {
    await server?.close();
    await web?.close();
    project?.cleanup();
  });

  const docs = async (libraryId: string, topic: string, maxTokens = 5000) => {
    const result = await server.call('get-docs', { libraryId, topic, maxTokens });
    expect(result.isError, JSON.stringify(result.content).slice(0, 300)).toBeFalsy();
    return result.structuredContent as unknown as Docs;
  };

  it('1. search-docs lists results in non-increasing relevance', async () => {
    for (const [libraryId, query] of [
      ['httpx', 'retry logic'],
      ['pydantic', 'model_validator'],
      ['fastapi', 'Depends parameters'],
      ['pydantic', 'field validators'],
    ]) {
      let result = await server.call('search-docs', { libraryId, query, maxResults: 10 });
      // the first search of a library may answer INDEXING_IN_PROGRESS while its docs are indexed
      while (result.isError && errorOf(result).code === 'INDEXING_IN_PROGRESS') {
        await new Promise((r) => setTimeout(r, 250));
        result = await server.call('search-docs', { libraryId, query, maxResults: 10 });
      }
      const relevance = (result.structuredContent as unknown as Search).results.map((r) => r.relevance);
      expect(relevance.length, `${libraryId} '${query}'`).toBeGreaterThan(1);
      expect(relevance, `${libraryId} '${query}'`).toEqual([...relevance].sort((a, b) => b - a));
    }
  });

  it('2. get-docs: a heading labels the text under it; a later part of a cut section says it continues', async () => {
    for (const maxTokens of [5000, 3000, 1500, 800]) {
      const answer = await docs('pydantic', 'field validators', maxTokens);
      const sections = labelled(answer.content);
      expect(sections.length).toBeGreaterThan(0);
      for (const { label, text } of sections) {
        // the heading line under a label is the label's last heading (or says it continues it)
        const heading = /^#{1,6} (.*)$/m.exec(text)?.[1];
        const last = label.split(' › ').pop() as string;
        if (heading !== undefined && text.startsWith('#'))
          expect(heading.replace(/ \(continued\)$/, '')).toBe(last.replace(/ \(continued\)$/, ''));
        // "## Field validators" stands only over the section's beginning
        if (/^## Field validators$/m.test(text))
          expect(text).toMatch(/^## Field validators\n\n\*\*API Documentation\*\*/);
      }
      // one section appears once: its parts read together under one heading
      expect(
        answer.content.match(/^## Field validators$/gm)?.length ?? 0,
        `maxTokens ${maxTokens}`,
      ).toBeLessThanOrEqual(1);
    }
  });

  it('3. slug, path, quoted and placeholder topics are normalized before ranking', async () => {
    const slug = await docs('fastapi', 'dependencies-with-yield');
    expect(slug.source).toContain('/fastapi/tutorial/dependencies/dependencies-with-yield/');
    expect(slug.confidence).toBeGreaterThanOrEqual(0.6);
    const path = await docs('fastapi', 'tutorial/dependencies/index');
    expect(path.source).toContain('/fastapi/tutorial/dependencies/index.md');
    const quoted = await docs('pydantic', '"field validators"');
    expect(quoted.source).toBe((await docs('pydantic', 'field validators')).source);
    expect(quoted.confidence).toBeGreaterThanOrEqual(0.9);
    for (const topic of ['<relevant topic>', '', '  ', '""']) {
      const overview = await docs('fastapi', topic);
      expect(overview.source.split('#')[0], `'${topic}'`).toBe(`${web.siteUrl('fastapi')}index.md`);
      expect(overview.confidence).toBe(1);
      expect(overview.content).not.toMatch(/release notes/i);
    }
  });

  it('3. an unrelated topic scores low, and a low-confidence answer carries relatedPages (seed §5.2)', async () => {
    for (const [libraryId, topic] of [
      ['fastapi', 'quantum circuit simulation'],
      ['fastapi', 'terraform state locking'],
      ['fastapi', 'git rebase interactive squash'],
      ['pydantic', 'photoshop layer masks'],
      ['pydantic', 'kubernetes pod autoscaling'],
      ['fastapi', 'css grid layout alignment'],
    ]) {
      const result = await server.call('get-docs', { libraryId, topic, maxTokens: 2000 });
      if (result.isError) {
        expect(errorOf(result).code).toBe('TOPIC_NOT_FOUND');
        continue;
      }
      const answer = result.structuredContent as unknown as Docs;
      expect(answer.confidence, `${libraryId} '${topic}'`).toBeLessThan(0.3);
      expect(answer.relatedPages.length, `${libraryId} '${topic}'`).toBeGreaterThan(0);
    }
  });

  it('4. relatedPages are filled near the answer and never the page returned', async () => {
    for (const [libraryId, topic] of [
      ['fastapi', 'Depends parameters'],
      ['pydantic', 'field validators'],
      ['httpx', 'timeouts'],
    ]) {
      const answer = await docs(libraryId as string, topic as string, 2000);
      expect(answer.relatedPages.length, `${libraryId} '${topic}'`).toBeGreaterThan(0);
      const page = answer.source.split('#')[0];
      expect(answer.relatedPages.map((p) => p.url.split('#')[0])).not.toContain(page);
    }
  });

  it('5. resolve-library: suggestions within distance 3, close spellings in notes, every matching library listed', async () => {
    const short = await server.call('resolve-library', { query: 'pydan' });
    if (short.isError) {
      const error = errorOf(short) as ReturnType<typeof errorOf> & { details?: { suggestions?: string[] } };
      expect(error.code).toBe('LIBRARY_NOT_FOUND');
      expect(error.suggestion).toContain("'pydantic'");
    } else {
      expect(short.structuredContent).toMatchObject({ libraryId: 'pydantic' });
    }
    const typo = (await server.call('resolve-library', { query: 'pydantc' })).structuredContent as {
      libraryId: string;
      notes: string[];
    };
    expect(typo.libraryId).toBe('pydantic');
    expect(typo.notes.join(' ')).toMatch(/close spelling/);
    const exact = (await server.call('resolve-library', { query: 'pydantic' })).structuredContent as {
      notes: string[];
      alternatives: { id: string }[];
    };
    expect(exact.notes.join(' ')).not.toMatch(/close spelling/);
    expect(exact.alternatives.map((a) => a.id).sort()).toEqual(['pydantic-ai', 'pydantic-settings']);
  });

  it('8. a library configured with a repository or a folder is not told to configure one', async () => {
    for (const libraryId of ['repo-only', 'folder-only']) {
      const result = await server.call('get-docs', { libraryId, topic: 'install' });
      const error = errorOf(result);
      // the source that reads what is configured answers: GitHub for the repository, local docs for the folder
      expect(`${error.message} ${error.suggestion}`).not.toMatch(/give .* (a )?docsUrl.*or repository/i);
      expect(`${error.message} ${error.suggestion}`).toMatch(
        libraryId === 'repo-only' ? /github|repository/i : /localPath|folder|nonexistent/,
      );
    }
  });

  it('8. the stdio server sends MCP log messages at warning and above until the client sets a level', async () => {
    // calls above logged info records (spans); none reached the client
    expect(logs.filter((l) => l.level === 'info' || l.level === 'debug')).toEqual([]);
    await server.client.setLoggingLevel('info');
    await server.call('list-libraries', {});
    await expect.poll(() => logs.filter((l) => l.level === 'info').length).toBeGreaterThan(0);
  });
});

describe.skipIf(skipReason)(`the CLI's log lines (#15)${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  let web: FakeWeb;
  let project: ReturnType<typeof writeProject>;
  beforeAll(async () => {
    web = await startCorpusWeb();
    project = writeProject(web);
  });
  afterAll(async () => {
    project?.cleanup();
    await web?.close();
  });

  const run = promisify(execFile);
  const cli = async (args: string[], env: Record<string, string> = {}) => {
    try {
      const r = await run(process.execPath, [cliPath, ...args], {
        env: { PATH: process.env.PATH ?? '', HOME: project.dir, ...env },
        timeout: 60_000,
      });
      return { code: 0, ...r };
    } catch (error) {
      const e = error as { code?: number; stdout?: string; stderr?: string };
      return { code: e.code ?? -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
    }
  };

  it('prints human log lines on stderr by default, JSON lines with --log-format json or PRO_CONTEXT_LOG_FORMAT=json', async () => {
    const args = ['-c', project.configFile, '--log-level', 'info', 'libraries'];
    const human = await cli(args);
    expect(human.code).toBe(0);
    expect(human.stderr.trim().length).toBeGreaterThan(0);
    expect(human.stderr).not.toMatch(/^\{"/m);
    const flag = await cli(['--log-format', 'json', ...args]);
    expect(flag.code).toBe(0);
    expect(flag.stderr).toMatch(/^\{"time":.*"level":/m);
    const env = await cli(args, { PRO_CONTEXT_LOG_FORMAT: 'json' });
    expect(env.stderr).toMatch(/^\{"time":.*"level":/m);
  });
});
