// temporary probe (not committed): VmHWM of the server after indexing the nine corpora
import { startWeb, makeProject, corpusLibraries } from './dist/lib/setup.js';
import { spawnTimed, memoryOf } from './dist/lib/latency.js';
const workers = process.argv[2];
const web = await startWeb();
const project = makeProject(web, workers === 'default' ? {} : { engine: { chunkWorkers: Number(workers) } });
const server = await spawnTimed(project.configFile);
for (const l of corpusLibraries) await server.call('get-docs', { libraryId: l.id, topic: 'getting started', maxTokens: 2000 });
await new Promise((r) => setTimeout(r, 3000));
console.log(workers, JSON.stringify(memoryOf(server.pid)));
await server.close(); project.cleanup(); await web.close();
