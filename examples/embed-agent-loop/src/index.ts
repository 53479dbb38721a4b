/**
 * Example: an agent program using pro-context's tools in-process through `@pro-context/embed`, with seed
 * 004's think() loop.
 */
export type { AgentAnswer, AgentStep } from './agent.js';
export { ToolUsingAgent } from './agent.js';
export type { ChatMessage, ChatModel, ScriptedTurn } from './model.js';
export { ScriptedModel } from './model.js';
