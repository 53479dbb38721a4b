import { Transform, type TransformCallback } from 'node:stream';

/**
 * The default size limit of one stdin message: the MCP SDK's own read-buffer size (10 MiB), which the SDK
 * enforces by closing the transport (and the server with it).
 */
export const DEFAULT_MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

/** A line longer than the limit, dropped: its size, and its JSON-RPC id when one could be read from its ends. */
export interface OversizedMessage {
  /** Bytes of the line (without its newline). */
  bytes: number;
  /** The request's id, read from the first or the last bytes of the line; undefined when not found there. */
  id?: string | number;
}

const NEWLINE = 0x0a;
/** How many bytes of each end of an oversized line are kept to find its id. */
const END_BYTES = 256;

// a request written with its id first (`{"jsonrpc":"2.0","id":1,"method":…`) or last (`…,"jsonrpc":"2.0","id":1}`,
// the MCP SDK's order); bounded inputs (END_BYTES), no nested quantifiers
const ID_FIRST = /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d{1,16}|"(?:[^"\\]|\\.){0,128}")/;
const ID_LAST = /"id"\s*:\s*(-?\d{1,16}|"(?:[^"\\]|\\.){0,128}")\s*(?:,\s*"jsonrpc"\s*:\s*"2\.0"\s*)?\}\s*$/;

function parseId(match: RegExpExecArray | null): string | number | undefined {
  const raw = match?.[1];
  if (raw === undefined) return undefined;
  try {
    const id: unknown = JSON.parse(raw);
    return typeof id === 'number' || typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}

/** The id of an oversized request from its first and last bytes (a best effort: a notification has none). */
export function idOf(head: Buffer, tail: Buffer): string | number | undefined {
  return parseId(ID_FIRST.exec(head.toString('utf8'))) ?? parseId(ID_LAST.exec(tail.toString('utf8')));
}

/**
 * Splits stdin into newline-delimited messages and passes on whole lines only, each as one chunk, so the SDK's
 * read buffer never holds more than one message. A line longer than `maxBytes` is never buffered whole: it is
 * dropped as it streams by (only its first and last bytes are kept, to find its id), and `onOversized` is told
 * once its newline arrives; the lines after it are served as usual. Linear in the input.
 */
export class LineLimiter extends Transform {
  private parts: Buffer[] = [];
  private size = 0;
  /** Inside a line past the limit: its bytes so far, and its ends. */
  private dropping: { bytes: number; head: Buffer; tail: Buffer } | undefined;

  constructor(
    private readonly maxBytes: number,
    private readonly onOversized: (message: OversizedMessage) => void,
    /**
     * A line holding a JSON array (a JSON-RPC batch, which MCP over stdio does not take since 2025-06-18, and which
     * the SDK's transport drops without an answer): handed here, parsed, instead of passing on.
     */
    private readonly onBatch?: (batch: unknown[] | undefined) => void,
  ) {
    super();
  }

  override _transform(chunk: Buffer | string, _encoding: BufferEncoding, callback: TransformCallback): void {
    const data = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    let start = 0;
    while (start <= data.length) {
      const end = data.indexOf(NEWLINE, start);
      if (end === -1) {
        if (start < data.length) this.append(data.subarray(start));
        break;
      }
      if (end > start) this.append(data.subarray(start, end));
      this.endLine();
      start = end + 1;
    }
    callback();
  }

  override _flush(callback: TransformCallback): void {
    // a last line without its newline is no message (the SDK would never read it either)
    this.parts = [];
    this.size = 0;
    this.dropping = undefined;
    callback();
  }

  private append(piece: Buffer): void {
    if (this.dropping) {
      this.dropping.bytes += piece.length;
      this.dropping.tail = lastBytes(this.dropping.tail, piece);
      return;
    }
    if (this.size + piece.length <= this.maxBytes) {
      this.parts.push(piece);
      this.size += piece.length;
      return;
    }
    // past the limit: keep the ends only
    let head: Buffer = Buffer.alloc(0);
    let tail: Buffer = Buffer.alloc(0);
    for (const part of [...this.parts, piece]) {
      if (head.length < END_BYTES) head = Buffer.concat([head, part.subarray(0, END_BYTES - head.length)]);
      tail = lastBytes(tail, part);
    }
    this.dropping = { bytes: this.size + piece.length, head, tail };
    this.parts = [];
    this.size = 0;
  }

  private endLine(): void {
    const dropped = this.dropping;
    if (dropped) {
      this.dropping = undefined;
      const id = idOf(dropped.head, dropped.tail);
      this.onOversized({ bytes: dropped.bytes, ...(id === undefined ? {} : { id }) });
      return;
    }
    const first = firstByte(this.parts);
    if (first === undefined) {
      // a blank line is no message (and no error to answer)
      this.parts = [];
      this.size = 0;
      return;
    }
    if (this.onBatch && first === OPEN_BRACKET) {
      const text = Buffer.concat(this.parts, this.size).toString('utf8');
      this.parts = [];
      this.size = 0;
      let batch: unknown;
      try {
        batch = JSON.parse(text);
      } catch {
        batch = undefined;
      }
      this.onBatch(Array.isArray(batch) ? batch : undefined);
      return;
    }
    this.parts.push(Buffer.from('\n'));
    this.push(Buffer.concat(this.parts, this.size + 1));
    this.parts = [];
    this.size = 0;
  }
}

const OPEN_BRACKET = 0x5b;

/** The first byte of a line that is not JSON whitespace, or `undefined` for a blank line. */
function firstByte(parts: readonly Buffer[]): number | undefined {
  for (const part of parts) {
    for (const byte of part) {
      if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0d && byte !== 0x0a) return byte;
    }
  }
  return undefined;
}

/** The last {@link END_BYTES} bytes of `previous` followed by `piece`. */
function lastBytes(previous: Buffer, piece: Buffer): Buffer {
  if (piece.length >= END_BYTES) return Buffer.from(piece.subarray(piece.length - END_BYTES));
  const joined = Buffer.concat([previous, piece]);
  return joined.length > END_BYTES ? joined.subarray(joined.length - END_BYTES) : joined;
}
