// Real S3-compatible server for tests: BUZZ_S3_ENDPOINT when set, otherwise a
// private moto_server on a free loopback port. Each test file gets its own
// freshly created, versioned bucket.

import { randomBytes } from 'node:crypto';
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
import { startMoto as startLocalMoto } from '../../src/dev/local-s3.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

export interface TestBucket {
  config: S3Config;
  client: S3Client;
  store: S3Store;
}

export interface Teardown {
  teardown(fn: () => unknown): void;
}

/** A private moto_server for this test file, stopped in teardown. */
async function startMoto(t: Teardown): Promise<string> {
  const moto = await startLocalMoto();
  t.teardown(() => moto.stop());
  return moto.endpoint;
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
