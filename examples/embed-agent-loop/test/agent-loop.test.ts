import { createToolClient, type ToolClient } from '@pro-context/embed';
import { enginePlugin } from '@pro-context/engine';
import { definePlugin, KERNEL_VERSION, type StartedKernel, sourceAdapterToken } from '@pro-context/kernel';
import exaPlugin from '@pro-context/plugin-exa';
import { createTestKernel, type FakeExa, StaticSourceAdapter, startFakeExa } from '@pro-context/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedModel, ToolUsingAgent } from '../src/index.js';

const docs = new StaticSourceAdapter('internal', {
  acme: {
    pages: [
      {
        url: 'https://docs.acme.test/webhooks',
        title: 'Webhooks',
        markdown:
          '# Webhooks\n\n## Verify a signature\n\nVerify every webhook with `acme.webhooks.verify(payload, header, secret)`:\n\n```python\nevent = acme.webhooks.verify(request.body, request.headers["Acme-Signature"], SECRET)\n```\n',
      },
    ],
  },
});

let exa: FakeExa;
let kernel: StartedKernel;
let tools: ToolClient;

beforeAll(async () => {
  exa = await startFakeExa();
  kernel = await createTestKernel({
    plugins: [
      enginePlugin,
      definePlugin({
        id: 'internal-docs',
        kernel: `>=${KERNEL_VERSION}`,
        register: (ctx) => ctx.bindValue(sourceAdapterToken, docs),
      }),
      exaPlugin,
    ],
    config: {
      libraries: [
        { id: 'acme', name: 'Acme', description: 'Acme payments SDK', language: 'python', source: 'internal' },
      ],
    },
    env: { EXA_API_KEY: exa.apiKey, PRO_CONTEXT_EXA_URL: exa.url },
  });
  tools = await createToolClient({ kernel });
});
afterAll(async () => {
  await tools.close();
  await kernel.stop();
  await exa.close();
});

describe("seed 004's agent loop on the embedded tools, with a scripted stand-in model", () => {
  it('documentation: the model asks search_documentation, gets the docs back as TOOL_RESULT, and answers with them', async () => {
    const model = new ScriptedModel([
      'I need the Acme docs first.\nTOOL_USE: search_documentation\nPARAMS: {"libraryName": "acme", "topic": "verify webhook signature"}',
      (messages) => {
        const result = messages.at(-1)?.content ?? '';
        const call = /acme\.webhooks\.verify\([^)]*\)/.exec(result)?.[0] ?? 'nothing found';
        return `Use ${call} in the handler.`;
      },
    ]);
    const agent = new ToolUsingAgent(tools, model);
    const { answer, steps } = await agent.think('Build the webhook handler for Acme payments.');

    // step 1: the system prompt carries the tools prompt and the TOOL_USE convention; the task is the user turn
    const [first, second] = model.calls;
    expect(first?.[0]?.role).toBe('system');
    expect(first?.[0]?.content).toContain('AVAILABLE TOOLS:\nAvailable external tools:');
    expect(first?.[0]?.content).toContain(
      '- search_documentation: Search technical documentation, SDKs, and library references',
    );
    expect(first?.[0]?.content).toContain('TOOL_USE: <tool_name>\nPARAMS: <JSON parameters>');
    expect(first?.[1]).toEqual({ role: 'user', content: 'Build the webhook handler for Acme payments.' });
    // step 2: the tool ran in-process; its result went back after the model's own turn
    expect(steps.map((s) => s.kind)).toEqual(['completion', 'tool', 'completion']);
    expect(steps[1]).toMatchObject({ kind: 'tool', tool: 'search_documentation' });
    expect(second?.at(-2)).toEqual({
      role: 'assistant',
      content: steps[0]?.kind === 'completion' ? steps[0].response : '',
    });
    const fed = second?.at(-1);
    expect(fed?.role).toBe('user');
    // seed 004 §1.7: the result's data as JSON.stringify(data, null, 2)
    expect(fed?.content.startsWith('TOOL_RESULT for search_documentation:\n{\n  "libraryId": "acme",\n')).toBe(true);
    const data = JSON.parse(fed?.content.slice(fed.content.indexOf('\n') + 1) ?? '{}') as Record<string, unknown>;
    expect(Object.keys(data)).toEqual(['libraryId', 'documentation', 'codeExamples', 'trustScore']);
    expect(data.documentation).toContain(
      'acme.webhooks.verify(request.body, request.headers["Acme-Signature"], SECRET)',
    );
    // step 3: the answer uses what the tool returned
    expect(answer).toBe('Use acme.webhooks.verify(payload, header, secret) in the handler.');
    expect(model.calls).toHaveLength(2);
  });

  it('web search and a bad call: a TOOL_ERROR goes back, the model corrects its parameters, then answers', async () => {
    const model = new ScriptedModel([
      'TOOL_USE: web_search\nPARAMS: {"query": "httpx async", "numResults": 50}',
      'TOOL_USE: web_search\nPARAMS: {"query": "httpx async client", "numResults": 1, "includeContent": false}',
      (messages) => `Read ${/"url": "(https:[^"]+)"/.exec(messages.at(-1)?.content ?? '')?.[1] ?? 'nothing'}.`,
    ]);
    const { answer, steps } = await new ToolUsingAgent(tools, model).think(
      'How do I make concurrent requests with HTTPX?',
    );
    expect(steps.map((s) => (s.kind === 'tool' ? s.feedback.split('\n')[0] : 'model'))).toEqual([
      'model',
      'TOOL_ERROR for web_search:',
      'model',
      'TOOL_RESULT for web_search:',
      'model',
    ]);
    expect(steps[1]?.kind === 'tool' && steps[1].feedback).toContain('numResults');
    expect(exa.count('/search')).toBe(1);
    expect(answer).toBe('Read https://www.python-httpx.org/async/.');
  });

  it('an answer without TOOL_USE ends the loop at once; a model that keeps calling tools is stopped at maxToolCalls', async () => {
    const direct = new ScriptedModel(['No tool needed: 2 + 2 = 4.']);
    expect((await new ToolUsingAgent(tools, direct).think('2 + 2?')).steps).toHaveLength(1);
    const loop = 'TOOL_USE: resolve_library\nPARAMS: {"libraryName": "acme"}';
    const stubborn = new ScriptedModel([loop, loop, loop]);
    const { answer, steps } = await new ToolUsingAgent(tools, stubborn, { maxToolCalls: 2 }).think('Which library?');
    expect(steps.filter((s) => s.kind === 'tool')).toHaveLength(2);
    expect(
      steps
        .filter((s) => s.kind === 'tool')
        .every((s) => s.kind === 'tool' && s.feedback.includes('"libraryId": "acme"')),
    ).toBe(true);
    expect(answer).toBe(loop);
  });
});
