import type { ToolClient } from '@pro-context/embed';
import type { ChatMessage, ChatModel } from './model.js';

/** One step of a {@link ToolUsingAgent.think} run. */
export type AgentStep = { kind: 'completion'; response: string } | { kind: 'tool'; tool: string; feedback: string };

/** What {@link ToolUsingAgent.think} answers. */
export interface AgentAnswer {
  /** The model's last response: the answer. */
  answer: string;
  steps: AgentStep[];
}

/**
 * Seed 004's agent integration pattern (§2.3): the tools prompt goes into the system prompt; when the model
 * answers with `TOOL_USE:` / `PARAMS:`, the tool runs in-process and its result goes back as the next user
 * message (`TOOL_RESULT for <tool>:` or `TOOL_ERROR for <tool>:`), until the model answers without a tool or
 * `maxToolCalls` is reached.
 */
export class ToolUsingAgent {
  constructor(
    private readonly tools: ToolClient,
    private readonly llm: ChatModel,
    private readonly options: { role?: string; maxToolCalls?: number; toolNames?: readonly string[] } = {},
  ) {}

  /** The system prompt: the agent's role and the tools section. */
  systemPrompt(): string {
    const role = this.options.role ?? 'You are the Builder Agent with access to external tools.';
    return `${role}\n\nAVAILABLE TOOLS:\n${this.tools.getToolsPrompt(this.options.toolNames)}`;
  }

  async think(task: string): Promise<AgentAnswer> {
    const messages: ChatMessage[] = [
      { role: 'system', content: this.systemPrompt() },
      { role: 'user', content: task },
    ];
    const steps: AgentStep[] = [];
    const maxToolCalls = this.options.maxToolCalls ?? 3;
    for (let calls = 0; ; calls++) {
      const response = await this.llm.completion(messages);
      steps.push({ kind: 'completion', response });
      if (calls >= maxToolCalls) return { answer: response, steps };
      const feedback = await this.tools.executeToolFromResponse(response);
      if (feedback === undefined) return { answer: response, steps };
      const tool = this.tools.parseToolUse(response)?.tool ?? '';
      steps.push({ kind: 'tool', tool, feedback });
      messages.push({ role: 'assistant', content: response }, { role: 'user', content: feedback });
    }
  }
}
