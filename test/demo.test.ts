// The README's first command must keep working: run `npm run demo` against a
// fresh empty database (it migrates it itself) and check its report says the
// target is gone and the bystander is byte-identical in all three stores.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { HeadBucketCommand } from '@aws-sdk/client-s3';
import { Redis } from 'ioredis';
import { createTestDatabase } from './helpers/db.js';
import { createS3Client } from '../src/s3.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

t.test('npm run demo deletes the target and leaves the bystander identical', async (t) => {
  const db = await createTestDatabase({ empty: true });
  t.teardown(() => db.drop());
  const env: Record<string, string | undefined> = { ...process.env, DATABASE_URL: db.url };
  for (const k of Object.keys(env)) if (k === 'NODE_OPTIONS' || k.startsWith('TAP')) delete env[k];
  const r = spawnSync('npm', ['run', '--silent', 'demo'], { cwd: root, env, encoding: 'utf8', timeout: 120_000 });
  t.equal(r.status, 0, r.stderr.slice(-2000));
  const report = r.stdout;
  for (const store of ['PostgreSQL rows', 'S3 object versions', 'Redis keys']) {
    const line = report.split('\n').find((l) => l.startsWith(store));
    t.ok(line, `the report has a ${store} line`);
    // target before > 0, target now = 0, bystander before = now, marked identical
    const m = /\s(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+✓/.exec(line ?? '');
    t.ok(m, `${store}: counts and a ✓`);
    if (m) {
      t.ok(Number(m[1]) > 0, `${store}: the target had data`);
      t.equal(Number(m[2]), 0, `${store}: the target has none now`);
      t.equal(m[3], m[4], `${store}: the bystander count is unchanged`);
    }
  }
  t.match(report, /shared content-addressed blobs .* ✓ untouched/);
  t.match(report, /tombstone: .* state=tombstone/);
  t.match(report, /bin\/deletions inspect [0-9a-f-]{36}/);

  // It cleans up after itself: both communities' Redis keys and its bucket.
  const keysLine = /Redis: (\d+) keys of the target ([0-9a-f-]{36}) and the bystander ([0-9a-f-]{36}) deleted/.exec(r.stderr);
  t.ok(keysLine, 'the demo reports its Redis clean-up');
  const redis = new Redis(process.env.REDIS_URL?.trim() || 'redis://127.0.0.1:6379');
  t.teardown(() => redis.disconnect());
  for (const id of [keysLine?.[2], keysLine?.[3]]) {
    if (!id) continue;
    const [, left] = await redis.scan('0', 'MATCH', `buzz:${id}*`, 'COUNT', 100_000);
    t.same(left, [], `no Redis key of ${id} is left`);
  }
  const bucketLine = /S3 bucket (community-deletion-demo-\d+) deleted/.exec(r.stderr);
  t.ok(bucketLine, 'the demo deletes the bucket it created');
  const endpoint = process.env.BUZZ_S3_ENDPOINT?.trim();
  if (endpoint && bucketLine) {
    const client = createS3Client({
      endpoint, bucket: bucketLine[1]!, region: 'us-east-1', addressingStyle: 'path',
      credentials: { accessKeyId: process.env.BUZZ_S3_ACCESS_KEY?.trim() || 'test', secretAccessKey: process.env.BUZZ_S3_SECRET_KEY?.trim() || 'test' },
    }, { maxAttempts: 1 });
    t.teardown(() => client.destroy());
    const gone = await client.send(new HeadBucketCommand({ Bucket: bucketLine[1]! })).then(() => false, () => true);
    t.ok(gone, `bucket ${bucketLine[1]} no longer exists`);
  }
});

t.test('npm run demo with a database that does not exist says so, without a stack trace', async (t) => {
  const name = `no_such_demo_db_${process.pid}`;
  const env: Record<string, string | undefined> = { ...process.env, DATABASE_URL: `postgres://postgres@127.0.0.1:5432/${name}` };
  for (const k of Object.keys(env)) if (k === 'NODE_OPTIONS' || k.startsWith('TAP')) delete env[k];
  const r = spawnSync('npm', ['run', '--silent', 'demo'], { cwd: root, env, encoding: 'utf8', timeout: 120_000 });
  t.not(r.status, 0, 'a non-zero exit');
  t.match(r.stderr, new RegExp(`demo: the database "${name}" on 127\\.0\\.0\\.1:5432 \\(DATABASE_URL\\) does not exist`));
  t.match(r.stderr, /createdb/, 'and how to fix it');
  t.notMatch(r.stderr, /\n\s+at /, 'no stack trace');
  t.equal(r.stdout, '', 'no report');
});
