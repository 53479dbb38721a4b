/**
 * `node dist/confidence.js`: how get-docs' `confidence` separates topics the docs answer from topics they do
 * not (issue #15, item 3). Matched topics: the 80 dev questions of ../shared/eval. Unrelated topics: plausible
 * things an agent might ask of a library whose documentation says nothing about them (below), asked of
 * fastapi and pydantic. Prints the distribution of each and how often each side crosses 0.3 and 0.5; writes
 * nothing. Through the real stdio server against the corpora on loopback, as `pnpm eval`.
 */
import { errorCode, loadEvalRows, makeProject, percentile, spawnServer, startWeb, table } from './lib/setup.js';

/**
 * Topics neither fastapi's nor pydantic's documentation covers (no section is about any of them). Not Docker or
 * proxies: FastAPI's docs have pages on both.
 */
export const UNRELATED_TOPICS = [
  'kubernetes pod autoscaling',
  'react component lifecycle hooks',
  'gradient descent learning rate schedule',
  'kafka consumer group offsets',
  'css grid layout alignment',
  'postgres vacuum tuning',
  'git rebase interactive squash',
  'rust borrow checker lifetimes',
  'spark dataframe partitioning',
  'tensorflow gpu memory growth',
  'android activity back stack',
  'excel pivot table formulas',
  'bluetooth low energy pairing',
  'terraform state locking',
  'quantum circuit simulation',
  'photoshop layer masks',
  'webpack code splitting chunks',
  'blender mesh modifiers',
  'ios push notification certificates',
  'elasticsearch shard rebalancing',
];

const LIBRARIES = ['fastapi', 'pydantic'];

interface Sample {
  confidence: number;
  notFound: boolean;
  related: number;
}

async function ask(server: Awaited<ReturnType<typeof spawnServer>>, libraryId: string, topic: string) {
  const result = await server.call('get-docs', { libraryId, topic, maxTokens: 2000 });
  const error = errorCode(result);
  if (error) {
    if (error.code !== 'TOPIC_NOT_FOUND') throw new Error(`${libraryId} '${topic}': ${error.code} ${error.message}`);
    return { confidence: 0, notFound: true, related: 0 };
  }
  const answer = result.structuredContent as { confidence: number; relatedPages: unknown[] };
  return { confidence: answer.confidence, notFound: false, related: answer.relatedPages.length };
}

function describe(name: string, samples: Sample[]): (string | number)[] {
  const values = samples.map((s) => s.confidence).sort((a, b) => a - b);
  const share = (f: (s: Sample) => boolean) => `${Math.round((samples.filter(f).length / samples.length) * 100)}%`;
  return [
    name,
    samples.length,
    values[0] ?? 0,
    percentile(values, 10),
    percentile(values, 50),
    percentile(values, 90),
    values[values.length - 1] ?? 0,
    share((s) => s.confidence < 0.3),
    share((s) => s.confidence < 0.5),
    share((s) => s.notFound),
    share((s) => !s.notFound && s.confidence < 0.5 && s.related === 0),
  ];
}

async function main() {
  const rows = loadEvalRows();
  const web = await startWeb();
  const project = makeProject(web);
  const server = await spawnServer(project.configFile);
  const matched: Sample[] = [];
  const unrelated: Sample[] = [];
  const verbose = process.argv.includes('--verbose');
  try {
    for (const row of rows) matched.push(await ask(server, row.library, row.question));
    for (const library of LIBRARIES) {
      for (const topic of UNRELATED_TOPICS) {
        const sample = await ask(server, library, topic);
        if (verbose) console.log(`${library} '${topic}': ${sample.notFound ? 'TOPIC_NOT_FOUND' : sample.confidence}`);
        unrelated.push(sample);
      }
    }
  } finally {
    await server.close();
    await web.close();
    project.cleanup();
  }
  console.log(
    `\nget-docs confidence (maxTokens 2000): ${rows.length} dev questions vs ${UNRELATED_TOPICS.length} unrelated topics × ${LIBRARIES.join(', ')}\n`,
  );
  console.log(
    table(
      ['topics', 'n', 'min', 'p10', 'median', 'p90', 'max', '< 0.3', '< 0.5', 'TOPIC_NOT_FOUND', '<0.5 w/o related'],
      [describe('matched (dev questions)', matched), describe('unrelated', unrelated)],
    ),
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
