import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSilentLogger } from '@pro-context/logging';
import { describe, expect, it } from 'vitest';
import { configurationNotes, startProContext } from '../src/index.js';
import {
  enabledRemotePlugins,
  listedRemotePlugins,
  loadRemotePlugins,
  unknownPluginsNote,
  withEnableHint,
} from '../src/remote-plugins.js';

describe('remote plugins enabled by name (issue #11 item 7)', () => {
  it('reads plugins from the config, PRO_CONTEXT_PLUGINS over it, overrides over both', () => {
    expect(enabledRemotePlugins({ values: {}, lines: new Map(), fromEnv: new Map(), env: {} })).toEqual([]);
    expect(
      enabledRemotePlugins({ values: { plugins: ['codex7'] }, lines: new Map(), fromEnv: new Map(), env: {} }),
    ).toEqual(['codex7']);
    const env = { PRO_CONTEXT_PLUGINS: 'context7, codex7,context7' };
    expect(
      enabledRemotePlugins({ values: { plugins: ['codex7'] }, lines: new Map(), fromEnv: new Map(), env }),
    ).toEqual(['context7', 'codex7']);
    const overrides = { plugins: [] };
    expect(enabledRemotePlugins({ values: {}, lines: new Map(), fromEnv: new Map(), env, overrides })).toEqual([]);
    // plain values (a ready configuration) and the process environment given explicitly
    expect(enabledRemotePlugins({ plugins: ['context7'] }, {})).toEqual(['context7']);
  });

  it('an invalid list enables nothing here (the kernel reports it, naming the key)', () => {
    expect(enabledRemotePlugins({ plugins: ['context8'] }, {})).toEqual([]);
  });

  it('an unknown name enables nothing and is named, with where it came from and a case-insensitive guess (issue #29.7)', () => {
    const env = { PRO_CONTEXT_PLUGINS: 'Exa,context7,nope' };
    expect(enabledRemotePlugins({ plugins: [] }, env)).toEqual(['context7']);
    const listed = listedRemotePlugins({ values: {}, lines: new Map(), fromEnv: new Map(), env });
    expect(listed).toEqual({ names: ['Exa', 'context7', 'nope'], fromVariable: true });
    expect(unknownPluginsNote(listed.names, listed.fromVariable)).toBe(
      "PRO_CONTEXT_PLUGINS names 'Exa', 'nope', which are no remote plugin of pro-context: no tools of them are offered. Known plugins: context7, codex7, grounding, exa, openai-embeddings (did you mean 'exa'?). Fix the name in PRO_CONTEXT_PLUGINS and restart the server.",
    );
    const fromFile = listedRemotePlugins({ plugins: ['grounding', 'exaa'] }, {});
    expect(fromFile.fromVariable).toBe(false);
    expect(unknownPluginsNote(fromFile.names, fromFile.fromVariable)).toContain(
      "the configuration's plugins names 'exaa', which is no remote plugin",
    );
    expect(unknownPluginsNote(['exa', 'codex7'])).toBeUndefined();
  });

  it('guesses a close spelling too (within two edits), but not a name listed already nor for a short one', () => {
    expect(unknownPluginsNote(['openai-embedings'])).toContain("(did you mean 'openai-embeddings'?)");
    expect(unknownPluginsNote(['contex7', 'grounding'])).toContain("(did you mean 'context7'?)");
    // context7 is listed: context8 is another name, not context7 again
    expect(unknownPluginsNote(['context7', 'context8'])).not.toContain('did you mean');
    // 'exaa' is one edit from 'exa', but a third of a three-letter name is no spelling slip
    expect(unknownPluginsNote(['exaa'])).not.toContain('did you mean');
    expect(unknownPluginsNote(['embeddings'])).not.toContain('did you mean');
    // two slips of one name: the name once
    expect(unknownPluginsNote(['contex7', 'Context7'])).toContain("(did you mean 'context7'?)");
  });

  it("codex7 brings Context7's client without its tools; with context7 enabled too, the client with the tools", async () => {
    const codex7 = await loadRemotePlugins(['codex7']);
    expect(codex7.map((p) => p.id)).toEqual(['context7', 'codex7']);
    expect(codex7[0]?.description).toContain('client only');
    const both = await loadRemotePlugins(['codex7', 'context7']);
    expect(both.map((p) => p.id)).toEqual(['context7', 'codex7']);
    expect(both[0]?.description).toContain('context7.search');
  });
});

describe('a remote plugin set up in the file but not enabled', () => {
  it('is named with its line, and the warning about its section says how to enable it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pc-preset-enable-'));
    try {
      writeFileSync(
        join(dir, 'pro-context.config.yaml'),
        ['logging:', '  level: info', 'plugins:', '  - contex7', 'context7:', '  apiKey: x', 'search: {}', ''].join(
          '\n',
        ),
      );
      const kernel = await startProContext({
        cwd: dir,
        env: { PRO_CONTEXT_CACHE_DIR: join(dir, 'cache') },
        logger: createSilentLogger(),
      });
      try {
        expect(kernel.warnings).toContain(
          "context7 (line 5) is set but no installed plugin reads it: the context7 plugin is not enabled. Add it to the configuration's plugins (plugins: [context7]) or set PRO_CONTEXT_PLUGINS=context7, and restart the server.",
        );
        expect(configurationNotes(kernel)[0]).toMatch(/^the configuration's plugins \(line 3\) names 'contex7'/);
        // a section no remote plugin reads keeps the validator's words
        expect(withEnableHint('sources.github (line 9) is set but no installed plugin reads it.')).toBe(
          'sources.github (line 9) is set but no installed plugin reads it.',
        );
      } finally {
        await kernel.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
