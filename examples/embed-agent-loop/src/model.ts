/** One chat message. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** The model an agent thinks with: any chat-completion API fits behind this. */
export interface ChatModel {
  completion(messages: readonly ChatMessage[]): Promise<string>;
}

/** One scripted turn: the reply, given what the model was sent. */
export type ScriptedTurn = string | ((messages: readonly ChatMessage[]) => string);

/**
 * A stand-in for a real model: answers each completion with the next turn of a script and keeps every
 * conversation it was sent, so a test can check what the agent showed the model at each step.
 */
export class ScriptedModel implements ChatModel {
  /** The messages of each completion, in order. */
  readonly calls: ChatMessage[][] = [];

  constructor(private readonly script: ScriptedTurn[]) {}

  async completion(messages: readonly ChatMessage[]): Promise<string> {
    this.calls.push(messages.map((m) => ({ ...m })));
    const turn = this.script[this.calls.length - 1];
    if (turn === undefined)
      throw new Error(`the script has ${this.script.length} turns; completion ${this.calls.length} was asked`);
    return typeof turn === 'function' ? turn(messages) : turn;
  }
}
