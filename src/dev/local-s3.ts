// A local S3 for the demo and benchmarks: moto_server on a free loopback port
// (the only S3-compatible server on this machine kind that implements
// versioning), plus a helper that creates a versioned bucket.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
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

export async function startMoto(): Promise<LocalS3> {
  const port = await freePort();
  let child: ChildProcess;
  let stderr = '';
  try {
    child = spawn('moto_server', ['-H', '127.0.0.1', '-p', String(port)], { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (error) {
    throw new Error(`could not start moto_server: ${(error as Error).message}`);
  }
  child.stderr?.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-2000)));
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', (e: NodeJS.ErrnoException) =>
      reject(new Error(e.code === 'ENOENT' ? 'moto_server is not installed (it ships with the machine\'s Python: pip package "moto[server]"); or set BUZZ_S3_ENDPOINT to an S3 endpoint with versioning' : e.message)),
    );
  });
  const endpoint = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`moto_server exited early: ${stderr}`);
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
