// Real S3-compatible server for tests: BUZZ_S3_ENDPOINT when set, otherwise a
// private moto_server on a free loopback port. Each test file gets its own
// freshly created, versioned bucket.

import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import {
  CreateBucketCommand,
  DeleteBucketCommand,
  DeleteObjectsCommand,
  ListObjectVersionsCommand,
  PutBucketVersioningCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import type { S3Config } from '../../src/config.js';
import { createS3Client, S3Store } from '../../src/s3.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

export interface TestBucket {
  config: S3Config;
  client: S3Client;
  store: S3Store;
}

interface Teardown {
  teardown(fn: () => unknown): void;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (address !== null && typeof address === 'object') resolve(address.port);
        else reject(new Error('could not determine a free port'));
      });
    });
  });
}

async function waitForHttp(url: string, child: ChildProcess, stderr: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`moto_server exited early (${child.exitCode ?? child.signalCode}): ${stderr()}`);
    }
    try {
      await fetch(url, { signal: AbortSignal.timeout(1000) });
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error(`moto_server did not answer on ${url} within 30 s: ${stderr()}`);
}

async function startMoto(t: Teardown): Promise<string> {
  const port = await freePort();
  const child = spawn('moto_server', ['-H', '127.0.0.1', '-p', String(port)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-2000);
  });
  const spawned = new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'ENOENT'
          ? new Error('moto_server is not installed (needed for S3 tests; or set BUZZ_S3_ENDPOINT)')
          : error,
      ),
    );
  });
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  });
  await spawned;
  const endpoint = `http://127.0.0.1:${port}`;
  await waitForHttp(`${endpoint}/`, child, () => stderr);
  return endpoint;
}

async function emptyAndDeleteBucket(client: S3Client, bucket: string): Promise<void> {
  for (;;) {
    const page = await client.send(new ListObjectVersionsCommand({ Bucket: bucket, MaxKeys: 1000 }));
    const objects = [...(page.Versions ?? []), ...(page.DeleteMarkers ?? [])].map((v) => ({ Key: v.Key, VersionId: v.VersionId }));
    if (objects.length === 0) break;
    await client.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: objects, Quiet: true } }));
  }
  await client.send(new DeleteBucketCommand({ Bucket: bucket }));
}

/** A fresh versioned bucket on a real S3-compatible server, removed in teardown. */
export async function createTestBucket(t: Teardown): Promise<TestBucket> {
  const external = process.env.BUZZ_S3_ENDPOINT?.trim();
  const endpoint = external ? external : await startMoto(t);
  const bucket = `cd-test-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
  const accessKeyId = process.env.BUZZ_S3_ACCESS_KEY?.trim() || 'test';
  const secretAccessKey = process.env.BUZZ_S3_SECRET_KEY?.trim() || 'test';
  const config: S3Config = {
    endpoint,
    bucket,
    region: process.env.BUZZ_S3_REGION?.trim() || 'us-east-1',
    addressingStyle: 'path',
    credentials: { accessKeyId, secretAccessKey },
  };
  const client = createS3Client(config);
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  await client.send(new PutBucketVersioningCommand({ Bucket: bucket, VersioningConfiguration: { Status: 'Enabled' } }));
  // A private moto dies with the test; a shared server must be left clean.
  t.teardown(async () => {
    if (external) await emptyAndDeleteBucket(client, bucket);
    client.destroy();
  });
  return { config, client, store: new S3Store(client, bucket) };
}
