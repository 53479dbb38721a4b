import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';

/**
 * The files of a gzipped repository tarball whose paths (without the archive's top folder,
 * `{owner}-{repo}-{sha}/`) are in `wanted`, as UTF-8 text. Streamed: only the wanted files are held.
 */
export async function filesFromTarball(gzipped: Uint8Array, wanted: ReadonlySet<string>): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  // loaded on the first tarball: a server that never reads a repository does not pay for it at start-up
  // a CommonJS module: bundled (dist/bin), its exports are the namespace's `default`
  const tarStream = (await import('tar-stream')) as typeof import('tar-stream') & {
    default?: typeof import('tar-stream');
  };
  const extract = tarStream.extract ?? tarStream.default?.extract;
  if (!extract) throw new Error('tar-stream could not be loaded');
  const tar = extract();
  tar.on('entry', (header, stream, next) => {
    const path = header.name.replace(/^[^/]*\//, '');
    const keep = (header.type === 'file' || header.type === 'contiguous-file') && wanted.has(path);
    const chunks: Buffer[] = [];
    if (keep) stream.on('data', (chunk: unknown) => chunks.push(chunk as Buffer));
    stream.on('end', () => {
      if (keep) out.set(path, Buffer.concat(chunks).toString('utf8'));
      next();
    });
    stream.on('error', next);
    stream.resume();
  });
  await pipeline(Readable.from([Buffer.from(gzipped)]), createGunzip(), tar);
  return out;
}
