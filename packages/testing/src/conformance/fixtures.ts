import {
  definePlugin,
  defineTool,
  KERNEL_VERSION,
  type PromptDefinition,
  type ToolPlugin,
  toolPluginToken,
  z,
} from '@pro-context/kernel';

const text = z.object({ text: z.string() });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The fixture tools, resources and prompts the official MCP conformance suite
 * (`@modelcontextprotocol/conformance`, server scenarios) calls by name, as a kernel `ToolPlugin`: compose
 * it into a host under test and the scenarios exercise that host's transport, sessions, progress, logging,
 * completion, resource subscriptions and DNS-rebinding protection. Only what a pro-context `ToolPlugin` can
 * express is here (text results and text resources); image, audio, embedded-resource, sampling and elicitation fixtures are not,
 * so those scenarios belong in the host's expected-failures file.
 */
export const conformanceFixtures: ToolPlugin = {
  id: 'conformance-fixtures',
  tools: () =>
    [
      defineTool({
        name: 'test_simple_text',
        title: 'Simple text',
        description: 'Returns a simple text response.',
        inputSchema: z.object({}),
        outputSchema: text,
        async handler() {
          const t = 'This is a simple text response for testing.';
          return { structured: { text: t }, text: t };
        },
      }),
      defineTool({
        name: 'test_error_handling',
        title: 'Error handling',
        description: 'Always fails, to test error results.',
        inputSchema: z.object({}),
        outputSchema: text,
        async handler() {
          throw new Error('This tool intentionally returns an error for testing');
        },
        renderError: () => 'This tool intentionally returns an error for testing',
      }),
      defineTool({
        name: 'test_tool_with_logging',
        title: 'Logging',
        description: 'Sends log messages while it runs.',
        inputSchema: z.object({}),
        outputSchema: text,
        async handler(_args, context) {
          context.logger.info('Tool execution started');
          await sleep(50);
          context.logger.info('Tool processing data');
          await sleep(50);
          context.logger.info('Tool execution completed');
          return {
            structured: { text: 'Tool with logging executed successfully' },
            text: 'Tool with logging executed successfully',
          };
        },
      }),
      defineTool({
        name: 'test_tool_with_progress',
        title: 'Progress',
        description: 'Reports progress while it runs.',
        inputSchema: z.object({}),
        outputSchema: text,
        async handler(_args, context) {
          for (const progress of [0, 50, 100]) {
            await context.progress({ progress, total: 100, message: `step ${progress}` });
            await sleep(50);
          }
          return {
            structured: { text: 'Tool with progress executed successfully' },
            text: 'Tool with progress executed successfully',
          };
        },
      }),
    ] as never,
  resources: () => [
    {
      name: 'static-text',
      uri: 'test://static-text',
      title: 'Static text',
      description: 'A static text resource.',
      mimeType: 'text/plain',
      async read() {
        return { text: 'This is the content of the static text resource.' };
      },
    },
    {
      name: 'watched-resource',
      uri: 'test://watched-resource',
      title: 'Watched resource',
      description: 'A resource clients may subscribe to.',
      mimeType: 'text/plain',
      async read() {
        return { text: 'Watched resource content' };
      },
    },
  ],
  resourceTemplates: () => [
    {
      name: 'template',
      uriTemplate: 'test://template/{id}/data',
      title: 'Template',
      description: 'A resource template with an id parameter.',
      mimeType: 'application/json',
      async list() {
        return [];
      },
      async read(_uri, { id }) {
        return { text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }) };
      },
    },
  ],
  prompts: (): PromptDefinition[] => [
    {
      name: 'test_simple_prompt',
      title: 'Simple prompt',
      description: 'A prompt without arguments.',
      arguments: {},
      render: () => 'This is a simple prompt for testing.',
    },
    {
      name: 'test_prompt_with_arguments',
      title: 'Prompt with arguments',
      description: 'A prompt with two required arguments.',
      arguments: {
        arg1: { description: 'First test argument', required: true },
        arg2: { description: 'Second test argument', required: true },
      },
      render: (args) => `Prompt with arguments: arg1='${args.arg1}', arg2='${args.arg2}'`,
      complete: { arg1: (prefix) => ['test-value', 'test-other'].filter((v) => v.startsWith(prefix)) },
    },
  ],
};

/** {@link conformanceFixtures} as a plugin to `use` in a test kernel. */
export const conformanceFixturesPlugin = definePlugin({
  id: 'conformance-fixtures',
  kernel: `>=${KERNEL_VERSION}`,
  description: 'Fixtures of the MCP conformance suite (tests only).',
  register(context) {
    context.bindValue(toolPluginToken, conformanceFixtures);
  },
});
