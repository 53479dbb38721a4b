import { describe, expect, it } from 'vitest';
import { enginePrompts, renderTemplate } from '../src/prompts.js';

const prompt = (name: string) => {
  const found = enginePrompts.find((p) => p.name === name);
  if (!found) throw new Error(`no prompt ${name}`);
  return found;
};

// PEP 8: two blank lines between top-level functions; trailing spaces and an indented last line on purpose
const snippet = 'import os\n\n\ndef a():\n    return 1\n\n\n\ndef b():  \n    return 2\n    ';

describe('prompt rendering', () => {
  it('migrate-code passes the code snippet through exactly as given', async () => {
    const text = await prompt('migrate-code').render({
      libraryId: 'pydantic',
      fromVersion: '1.10',
      toVersion: '2.0',
      codeSnippet: snippet,
    });
    expect(text).toContain(`\`\`\`\n${snippet}\n\`\`\``);
  });

  it('debug-with-docs passes the error message and code through exactly as given', async () => {
    const errorMessage = 'Traceback:\n\n\n  File "x.py", line 3';
    const text = await prompt('debug-with-docs').render({ libraryId: 'fastapi', errorMessage, codeSnippet: snippet });
    expect(text).toContain(`Error: ${errorMessage}`);
    expect(text).toContain(`\`\`\`\n${snippet}\n\`\`\``);
  });

  it('leaves no run of blank lines where an optional block vanished', async () => {
    const text = await prompt('migrate-code').render({ libraryId: 'pydantic', fromVersion: '1.10', toVersion: '2.0' });
    expect(text).not.toContain('Migrate the following code');
    expect(text).not.toMatch(/\n{3,}/);
    expect(text).toBe(text.trim());
  });

  it('does not read template syntax inside an argument', () => {
    expect(renderTemplate('Code: {code}', { code: '{#if x}{name}{/if}', name: 'n' })).toBe('Code: {#if x}{name}{/if}');
  });
});
