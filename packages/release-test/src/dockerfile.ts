// The team server's Dockerfile, read without a Docker daemon: its stages and instructions, and its install
// step run as written in a directory that plays the build stage's WORKDIR.
import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './registry.js';

export const teamServerDir = join(repoRoot, 'examples', 'team-server');

export interface Instruction {
  readonly keyword: string;
  /** the rest of the line, continuations joined */
  readonly args: string;
  /** 1-based line where it starts */
  readonly line: number;
}

export interface Stage {
  readonly from: string;
  readonly name?: string;
  readonly instructions: Instruction[];
}

/** The Dockerfile's stages (comments dropped, `\` continuations joined). */
export function readDockerfile(path = join(teamServerDir, 'Dockerfile')): Stage[] {
  const lines = readFileSync(path, 'utf8').split('\n');
  const stages: Stage[] = [];
  for (let i = 0; i < lines.length; i++) {
    const start = i;
    let text = lines[i] as string;
    if (/^\s*(#|$)/.test(text)) continue;
    // Docker drops the escape character and the newline: the lines are joined as they are
    while (text.endsWith('\\') && i + 1 < lines.length) {
      text = `${text.slice(0, -1)}${lines[++i] as string}`;
    }
    const match = /^(\w+)\s+([\s\S]*)$/.exec(text.trim());
    if (!match) throw new Error(`Dockerfile:${start + 1}: not an instruction: ${text}`);
    const instruction = { keyword: (match[1] as string).toUpperCase(), args: match[2] as string, line: start + 1 };
    if (instruction.keyword === 'FROM') {
      const [from, as, name] = instruction.args.split(/\s+/);
      stages.push({ from: from as string, name: as?.toUpperCase() === 'AS' ? name : undefined, instructions: [] });
    } else {
      const stage = stages.at(-1);
      if (!stage) throw new Error(`Dockerfile:${start + 1}: ${instruction.keyword} before FROM`);
      stage.instructions.push(instruction);
    }
  }
  return stages;
}

/** `COPY [--from=x] src… dest` (or the JSON form) → its flags, sources and destination. */
export function copyParts(instruction: Instruction): { from?: string; sources: string[]; dest: string } {
  let words = instruction.args.trim().startsWith('[')
    ? (JSON.parse(instruction.args) as string[])
    : instruction.args.trim().split(/\s+/);
  let from: string | undefined;
  while (words[0]?.startsWith('--')) {
    const flag = words[0] as string;
    if (flag.startsWith('--from=')) from = flag.slice('--from='.length);
    words = words.slice(1);
  }
  return { from, sources: words.slice(0, -1), dest: words.at(-1) as string };
}

/** `ARG NAME[=default]` of a stage → its defaults (undefined when none). */
export function argDefaults(stage: Stage): Record<string, string | undefined> {
  const args: Record<string, string | undefined> = {};
  for (const i of stage.instructions.filter((x) => x.keyword === 'ARG')) {
    const [name, value] = i.args.trim().split('=', 2) as [string, string | undefined];
    args[name] = value;
  }
  return args;
}

/**
 * Lays out `dir` as the build stage's WORKDIR after its COPY instructions (sources from the build context;
 * destinations relative to WORKDIR) and returns the RUN command that installs (the one running `npm install`).
 */
export function prepareInstall(
  stage: Stage,
  dir: string,
): { command: string; args: Record<string, string | undefined> } {
  for (const i of stage.instructions.filter((x) => x.keyword === 'COPY')) {
    const { from, sources, dest } = copyParts(i);
    if (from) continue;
    if (dest.startsWith('/'))
      throw new Error(`Dockerfile:${i.line}: COPY to an absolute path; the test lays out WORKDIR only`);
    for (const source of sources) cpSync(join(teamServerDir, source), join(dir, dest), { recursive: true });
  }
  const runs = stage.instructions.filter((x) => x.keyword === 'RUN' && /\bnpm install\b/.test(x.args));
  if (runs.length !== 1) throw new Error(`the build stage has ${runs.length} RUN lines with npm install; expected one`);
  return { command: (runs[0] as Instruction).args, args: argDefaults(stage) };
}
