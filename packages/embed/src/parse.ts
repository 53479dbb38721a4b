/** A tool call an agent wrote with the `TOOL_USE:` / `PARAMS:` convention (seed 004 §2.3). */
export interface ParsedToolUse {
  /** The tool's name. */
  tool: string;
  /** The parameters, or `{}` when the agent wrote no `PARAMS:` line. */
  params: Record<string, unknown>;
}

/** What {@link parseToolUse} answers when the text asks for a tool but its parameters cannot be read. */
export interface UnreadableToolUse {
  tool: string;
  params?: undefined;
  /** Why the parameters were refused (for the agent: it can write them again). */
  error: string;
}

const TOOL_USE = /TOOL_USE:\s*`?([A-Za-z0-9._-]{1,128})`?/i;
const PARAMS = /PARAMS:\s*/i;

/** The balanced JSON object starting at `start` (`{` … its matching `}`), honouring strings and escapes. */
function objectAt(text: string, start: number): string | undefined {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return text.slice(start, i + 1);
  }
  return undefined;
}

/**
 * Reads the first `TOOL_USE: <tool_name>` and the `PARAMS: <JSON object>` after it from a model's response.
 * Nested objects, braces inside strings and a fenced code block around the JSON are fine. Answers
 * `undefined` when the text asks for no tool; `{ tool, error }` when the parameters are not a JSON object.
 */
export function parseToolUse(text: string): ParsedToolUse | UnreadableToolUse | undefined {
  const use = TOOL_USE.exec(text);
  if (!use?.[1]) return undefined;
  const tool = use[1];
  const rest = text.slice(use.index + use[0].length);
  const params = PARAMS.exec(rest);
  if (!params) return { tool, params: {} };
  const after = rest.slice(params.index + params[0].length);
  const open = after.search(/\S/);
  const fenced = /^```[a-z]*\s*/i.exec(after.slice(open));
  const start = fenced ? open + fenced[0].length : open;
  if (after[start] !== '{') {
    return { tool, error: 'PARAMS must be a JSON object, e.g. PARAMS: {"libraryName": "react"}.' };
  }
  const json = objectAt(after, start);
  if (!json) return { tool, error: 'PARAMS is an unterminated JSON object.' };
  try {
    const value = JSON.parse(json) as unknown;
    if (!value || typeof value !== 'object' || Array.isArray(value)) {
      return { tool, error: 'PARAMS must be a JSON object.' };
    }
    return { tool, params: value as Record<string, unknown> };
  } catch (error) {
    return { tool, error: `PARAMS is not valid JSON: ${(error as Error).message}` };
  }
}
