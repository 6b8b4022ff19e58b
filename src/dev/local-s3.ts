// A local S3 for the demo, the benchmarks and the tests: moto on a free
// loopback port (the only S3-compatible server on this machine kind that
// implements versioning), run by scripts/moto-server.py — moto_server with its
// requests handled one at a time, because moto's backend is not thread-safe —
// plus a helper that creates a versioned bucket.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CreateBucketCommand, PutBucketVersioningCommand, type S3Client } from '@aws-sdk/client-s3';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (address && typeof address === 'object' ? resolve(address.port) : reject(new Error('no free port'))));
    });
  });
}

export interface LocalS3 {
  endpoint: string;
  stop(): void;
}

/** scripts/moto-server.py: moto_server, one request at a time. */
export const MOTO_SERVER = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'scripts', 'moto-server.py');

export async function startMoto(): Promise<LocalS3> {
  const port = await freePort();
  let child: ChildProcess;
  let stderr = '';
  try {
    child = spawn('python3', [MOTO_SERVER, '-H', '127.0.0.1', '-p', String(port)], { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (error) {
    throw new Error(`could not start moto_server: ${(error as Error).message}`);
  }
  child.stderr?.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-2000)));
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', (e: NodeJS.ErrnoException) =>
      reject(new Error(e.code === 'ENOENT' ? 'python3 is not installed (moto ships with the machine\'s Python: pip package "moto[server]"); or set BUZZ_S3_ENDPOINT to an S3 endpoint with versioning' : e.message)),
    );
  });
  const endpoint = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`moto (scripts/moto-server.py) exited early — is moto installed (pip package "moto[server]")? ${stderr}`);
    try {
      await fetch(endpoint, { signal: AbortSignal.timeout(1000) });
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`moto_server did not answer on ${endpoint}: ${stderr}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return { endpoint, stop: () => void child.kill('SIGTERM') };
}

export async function ensureVersionedBucket(client: S3Client, bucket: string): Promise<void> {
  try {
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
  } catch (error) {
    const name = (error as { name?: string }).name;
    if (name !== 'BucketAlreadyOwnedByYou' && name !== 'BucketAlreadyExists') throw error;
  }
  await client.send(new PutBucketVersioningCommand({ Bucket: bucket, VersioningConfiguration: { Status: 'Enabled' } }));
}
