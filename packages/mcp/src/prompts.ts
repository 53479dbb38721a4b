import { completable } from '@modelcontextprotocol/sdk/server/completable.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { type PromptDefinition, z } from '@pro-context/kernel';

/** The prompts, their string arguments completed from `PromptDefinition.complete`. */
export function servePrompts(server: McpServer, prompts: readonly PromptDefinition[]): void {
  for (const prompt of prompts) {
    const argsSchema = Object.fromEntries(
      Object.entries(prompt.arguments).map(([name, arg]) => {
        const complete = prompt.complete?.[name];
        const base = z.string();
        // the SDK looks for the completer on the field (and, to offer completion, inside an optional one)
        if (complete) completable(base, async (value: string) => complete(value));
        const field = arg.required ? base.describe(arg.description) : base.optional().describe(arg.description);
        if (complete) completable(field, async (value: string | undefined) => complete(value ?? ''));
        return [name, field];
      }),
    );
    server.registerPrompt(
      prompt.name,
      { ...(prompt.title ? { title: prompt.title } : {}), description: prompt.description, argsSchema },
      (args: Record<string, string | undefined>) => ({
        description: prompt.description,
        messages: [{ role: 'user' as const, content: { type: 'text' as const, text: prompt.render(args) } }],
      }),
    );
  }
}
