// The team server's Dockerfile, checked without a Docker daemon: its build context holds every COPY source,
// the paths it links and runs are the published package's binaries, its ports and health check match the
// configuration it copies in. publish.test.ts runs its install step against the loopback registry.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { copyParts, readDockerfile, teamServerDir } from '../src/dockerfile.js';
import { repoRoot } from '../src/registry.js';

const stages = readDockerfile();
const [build, runtime] = stages as [(typeof stages)[0], (typeof stages)[0]];
const preset = JSON.parse(readFileSync(join(repoRoot, 'packages', 'pro-context', 'package.json'), 'utf8')) as {
  name: string;
  bin: Record<string, string>;
};
const config = parseYaml(readFileSync(join(teamServerDir, 'pro-context.config.yaml'), 'utf8')) as {
  server: { port: number; host: string };
  cache: { directory: string };
};
const of = (stage: typeof build, keyword: string) => stage.instructions.filter((i) => i.keyword === keyword);

describe('examples/team-server/Dockerfile', () => {
  it('has a build stage and a runtime stage on the same Node 20 image', () => {
    expect(stages).toHaveLength(2);
    expect(build.name).toBe('build');
    expect(build.from).toBe(runtime.from);
    expect(runtime.from).toMatch(/^node:20/);
  });

  it('copies only what its build context holds', () => {
    for (const stage of stages) {
      for (const copy of of(stage, 'COPY')) {
        const { from, sources } = copyParts(copy);
        if (from) {
          expect(
            stages.map((s) => s.name),
            `Dockerfile:${copy.line}`,
          ).toContain(from);
          continue;
        }
        for (const source of sources)
          expect(existsSync(join(teamServerDir, source)), `Dockerfile:${copy.line} ${source}`).toBe(true);
      }
    }
  });

  it('installs the published preset, allowing better-sqlite3 its install script (npm 11 asks for allowScripts)', () => {
    const install = of(build, 'RUN').find((r) => /\bnpm install\b/.test(r.args));
    expect(install?.args).toContain(`"${preset.name}@\${PRO_CONTEXT_VERSION}"`);
    expect(install?.args).toContain('"allowScripts":{"better-sqlite3":true}');
    expect(install?.args).toContain('--omit=dev');
    // joined as Docker joins continuation lines, it is one shell command (`sh -n`: parsed, not run)
    expect(spawnSync('sh', ['-n', '-c', install?.args ?? 'false']).status).toBe(0);
  });

  it('links the binaries the package declares and runs one of them', () => {
    const links = of(runtime, 'RUN')
      .flatMap((r) => [...r.args.matchAll(/ln -s (\S+) \/usr\/local\/bin\/(\S+)/g)])
      .map((m) => [m[2], m[1]]);
    expect(Object.fromEntries(links)).toEqual(
      Object.fromEntries(
        Object.entries(preset.bin).map(([name, path]) => [
          name,
          `/opt/pro-context/node_modules/${preset.name}/${path.replace(/^\.\//, '')}`,
        ]),
      ),
    );
    const cmd = JSON.parse(of(runtime, 'CMD')[0]?.args ?? '[]') as string[];
    expect(Object.keys(preset.bin)).toContain(cmd[0]);
    expect(cmd.slice(1)).toEqual(['serve', '--http']);
  });

  it('exposes and health-checks the port its configuration serves on, with the cache on the volume', () => {
    expect(config.server.host).toBe('0.0.0.0');
    expect(of(runtime, 'EXPOSE')[0]?.args.trim()).toBe(String(config.server.port));
    expect(of(runtime, 'HEALTHCHECK')[0]?.args).toContain(`http://127.0.0.1:${config.server.port}/health`);
    const volume = JSON.parse(of(runtime, 'VOLUME')[0]?.args ?? '[]') as string[];
    expect(config.cache.directory.startsWith(`${volume[0]}/`)).toBe(true);
    const copyConfig = of(runtime, 'COPY')
      .map(copyParts)
      .find((c) => c.sources.includes('pro-context.config.yaml'));
    expect(of(runtime, 'ENV')[0]?.args).toContain(`PRO_CONTEXT_CONFIG=${copyConfig?.dest}`);
  });
});
