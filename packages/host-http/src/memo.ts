import { AsyncLocalStorage } from 'node:async_hooks';

/** One serialized tool result, and the tool's check that says it may still be served. */
export interface MemoEntry {
  tool: string;
  /** The JSON-RPC `result` (a `CallToolResult`), serialized. */
  result: Buffer;
  reusable: () => boolean;
}

/** What a directly answered `tools/call` learns while it runs: the tool's `reusable` check, if it set one. */
export interface MemoSlot {
  key: string;
  tool: string;
  reusable?: () => boolean;
}

const slots = new AsyncLocalStorage<MemoSlot>();

/** The slot of the `tools/call` being answered, inside its async context (the host's runner sets `reusable`). */
export function currentMemoSlot(): MemoSlot | undefined {
  return slots.getStore();
}

/**
 * Serialized answers of tools that said they may be served again (`ToolResult.reusable`: get-docs from docs
 * the engine has), by tool name and arguments as sent. A hit is answered without the MCP server, the tool
 * runner, the tool or serialization; the tool's check runs on every hit, and an entry whose check fails is
 * dropped (the next call runs the tool). Bounded by entries and bytes, least recently used out first.
 */
export class AnswerMemo {
  private readonly entries = new Map<string, MemoEntry>();
  private bytes = 0;

  constructor(
    private readonly maxEntries = 1000,
    private readonly maxBytes = 16 * 1024 * 1024,
  ) {}

  /** The key of a `tools/call`'s params (name and arguments as sent), or undefined when it has none. */
  static keyOf(params: unknown): { key: string; tool: string } | undefined {
    if (typeof params !== 'object' || params === null) return undefined;
    const { name, arguments: args, task } = params as { name?: unknown; arguments?: unknown; task?: unknown };
    if (typeof name !== 'string' || task !== undefined) return undefined;
    if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) return undefined;
    return { key: `${name}\u0000${args === undefined ? '{}' : JSON.stringify(args)}`, tool: name };
  }

  /** Runs `fn` (the request's dispatch) with `slot` as its memo slot. */
  static within<T>(slot: MemoSlot, fn: () => T): T {
    return slots.run(slot, fn);
  }

  get size(): number {
    return this.entries.size;
  }

  /** The entry for `key` whose tool still says it may be served (a failing one is dropped). */
  get(key: string): MemoEntry | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    let valid = false;
    try {
      valid = entry.reusable();
    } catch {
      valid = false;
    }
    if (!valid) {
      this.delete(key);
      return undefined;
    }
    // most recently used last
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry;
  }

  set(key: string, entry: MemoEntry): void {
    if (entry.result.length > this.maxBytes / 4) return;
    this.delete(key);
    this.entries.set(key, entry);
    this.bytes += entry.result.length;
    for (const [oldest, old] of this.entries) {
      if (this.entries.size <= this.maxEntries && this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= old.result.length;
    }
  }

  /** Drops every entry whose check fails now (run now and then: an entry nobody asks for again holds memory). */
  sweep(): void {
    for (const key of [...this.entries.keys()]) this.get(key);
  }

  private delete(key: string): void {
    const old = this.entries.get(key);
    if (!old) return;
    this.entries.delete(key);
    this.bytes -= old.result.length;
  }

  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }
}
