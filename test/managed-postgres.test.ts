// Managed PostgreSQL (README "Managed PostgreSQL", docs/managed.md): a role
// that owns its database and has CREATEDB/CREATEROLE but is NOT a superuser
// runs `deletions migrate` (managed mode), which reports exactly what is
// degraded; then a whole deletion runs through the CLI as that role (it
// grants itself the operator and executor roles, as a managed server's admin
// would), the fence refuses writes to the deleted community (55000), and the
// bystander is untouched. Real PostgreSQL, Redis and S3.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import postgres from 'postgres';
import { adminSql, dbUrl, urlAs } from './helpers/db.js';
import { createTestBucket } from './helpers/moto.js';
import {
  RUNNABLE_STAGES, approverEnv, cliEnv, deletions, fingerprint, redisClient, root, seedCommunity, show } from './helpers/e2e.js';
import { migrate, withManagedPrivileges } from '../src/migrate.js';
import { SCHEMA_VERSION } from '../src/engine.js';

const suffix = `${process.pid}_${randomBytes(3).toString('hex')}`;
const role = `cd_managed_${suffix}`;
const name = `cd_managed_${suffix}`;
const admin = adminSql();
await admin.unsafe(`create role "${role}" login createdb createrole nosuperuser`);
await admin.unsafe(`create database "${name}" owner "${role}"`);
// PostgreSQL 16+: CREATEROLE grants membership only in roles one holds the
// ADMIN OPTION on, which the creator of a role gets. On a fresh managed
// server the migrating role creates the engine roles itself; here they exist
// already (a superuser created them for the other tests), so the test gives
// it what their creator would hold: ADMIN, without INHERIT or SET.
const [version] = await admin<{ v16: boolean }[]>`select current_setting('server_version_num')::int >= 160000 as v16`;
if (version?.v16) {
  await admin.unsafe(`grant community_deletion_owner, community_deletion_operator, community_deletion_executor,
                      community_deletion_app to "${role}" with admin true, inherit false, set false`);
}
const managedUrl = urlAs(dbUrl(name), role);
const superSql = postgres(dbUrl(name), { max: 2, onnotice: () => {} });
const managedSql = postgres(managedUrl, { max: 2, onnotice: () => {} });
t.teardown(async () => {
  await managedSql.end({ timeout: 5 });
  await superSql.end({ timeout: 5 });
  await admin.unsafe(`drop database if exists "${name}" with (force)`);
  await admin.unsafe(`drop role if exists "${role}"`);
  await admin.end();
});

const currentSql = await readFile(path.join(root, 'db', 'migrations', 'current.sql'), 'utf8');
const currentHasContent = currentSql.split('\n').some((l) => !/^\s*(--([^!].*)?)?$/.test(l));

t.test('the migrating role really is not a superuser', async (t) => {
  const [r] = await managedSql<{ rolsuper: boolean; rolcreaterole: boolean; rolbypassrls: boolean }[]>`
    select rolsuper, rolcreaterole, rolbypassrls from pg_roles where rolname = current_user`;
  t.same(r, { rolsuper: false, rolcreaterole: true, rolbypassrls: false });
});

if (currentHasContent) {
  // Work not yet committed as a migration (db/migrations/current.sql): apply
  // the committed migrations in managed mode, then current.sql as the same
  // role with the same privileges (what the next committed migration will be).
  t.test('committed migrations, then current.sql, as the managed role', async (t) => {
    const r = await migrate(managedUrl);
    t.same(r, { managed: true });
    await withManagedPrivileges(managedUrl, async () => {
      const w = spawnSync(path.join(root, 'node_modules', '.bin', 'graphile-migrate'), ['watch', '--once'], {
        cwd: root, env: { ...process.env, DATABASE_URL: managedUrl }, encoding: 'utf8' });
      t.equal(w.status, 0, `${w.stdout}${w.stderr}`);
    });
  });
}

t.test('deletions migrate as the managed role succeeds and says what is degraded', async (t) => {
  const env = { DATABASE_URL: managedUrl };
  const first = await deletions(['migrate', '--json'], env);
  t.equal(first.code, 0, show(first));
  t.match(first.json, { migrated: true, schema_version: SCHEMA_VERSION, write_fence: 'plpgsql', managed: true });
  const report = first.json.installation;
  t.match(report, { write_fence: 'plpgsql', ddl_lock: 'explicit', ddl_guard: 'catalog_validation', superuser_install: false });
  const degraded = Object.fromEntries((report.degraded as { what: string; state: string; why: string }[]).map((d) => [d.what, d]));
  t.match(degraded['native fence'], { state: 'no', why: /not superuser/ }, 'native fence: no (not superuser)');
  t.match(degraded['DDL lock'], { state: 'explicit', why: /community_deletion\.ddl_lock\(\)/ }, 'DDL lock: explicit');
  t.match(degraded['DDL guard'], { state: 'catalog validation' });
  // The engine owner role is cluster-wide: created without BYPASSRLS by a
  // non-superuser, it keeps BYPASSRLS where a superuser created it first (as
  // on this test server). The report says which.
  const [owner] = await superSql<{ bypass: boolean }[]>`select rolbypassrls as bypass from pg_roles where rolname = 'community_deletion_owner'`;
  t.equal(report.rls_exemption, owner!.bypass ? 'bypassrls' : 'registration_check');
  t.equal('RLS exemption' in degraded, !owner!.bypass);

  const second = await deletions(['migrate', '--json'], env);
  t.equal(second.code, 0, show(second));
  t.equal(second.json.managed, true);
});

t.test('managed mode leaves no extra privilege behind and records the original hashes', async (t) => {
  const members = await superSql`
    select r.rolname from pg_roles r
     where r.rolname <> 'community_deletion_owner'
       and not r.rolsuper
       and (pg_has_role(r.oid, 'community_deletion_owner', 'USAGE')
            or pg_has_role(r.oid, 'community_deletion_owner',
                           case when current_setting('server_version_num')::int >= 160000 then 'SET' else 'MEMBER' end))`;
  t.same(members, [], 'no role may act as community_deletion_owner after migrate');
  const [create] = await superSql<{ pub: boolean; engine: boolean }[]>`
    select has_schema_privilege('community_deletion_owner', 'public', 'CREATE') as pub,
           has_schema_privilege('community_deletion_owner', 'community_deletion', 'CREATE') as engine`;
  t.same(create, { pub: false, engine: false }, 'the owner holds no CREATE on public or the engine schema');
  const events = await superSql`select evtname from pg_event_trigger`;
  t.same(events, [], 'no event trigger (only a superuser may create one)');
  const committed = path.join(root, 'db', 'migrations', 'committed');
  const expected: string[] = [];
  for (const f of (await readdir(committed)).sort()) {
    const text = await readFile(path.join(committed, f), 'utf8');
    expected.push(/^--! Hash: (\S+)$/m.exec(text)![1]!);
  }
  const recorded = await superSql<{ hash: string }[]>`select hash from graphile_migrate.migrations order by filename`;
  t.same(recorded.map((r) => r.hash), expected, 'graphile_migrate.migrations holds the committed files\' own hashes');
  const [fns] = await superSql<{ n: number }[]>`
    select count(*)::int as n from pg_proc where pronamespace = 'community_deletion'::regnamespace
       and proowner <> 'community_deletion_owner'::regrole`;
  t.equal(fns!.n, 0, 'every engine function is owned by community_deletion_owner');
});

t.test('a deletion runs end to end through the CLI as the managed role', async (t) => {
  // The test fixtures (seeding and fingerprints) as the server's superuser;
  // the deletion itself only as the non-superuser and the second operator.
  const fixtures = spawnSync('psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', dbUrl(name),
    '-f', path.join(root, 'db', 'tests', 'fixtures', 'helpers.sql')], { encoding: 'utf8' });
  t.equal(fixtures.status, 0, fixtures.stderr);
  await managedSql.unsafe('grant community_deletion_operator, community_deletion_executor to current_user');

  const bucket = await createTestBucket(t);
  const redis = redisClient();
  t.teardown(() => redis.disconnect());
  const env = cliEnv({ url: managedUrl }, bucket);
  const tag = `managed-${process.pid}`;
  const target = await seedCommunity(superSql, bucket.store, redis, `target-${tag}.example`, { rows: 2, keys: 2, versions: 2, redisKeys: 5 });
  const bystander = await seedCommunity(superSql, bucket.store, redis, `bystander-${tag}.example`, { rows: 2, keys: 2, versions: 2, redisKeys: 5 });
  const before = await fingerprint(superSql, bucket.store, redis, bystander.id);

  const submitted = await deletions(['submit', '--host', target.host, '--requested-by', 'alice@ops'], env);
  t.equal(submitted.code, 0, show(submitted));
  const id = submitted.json.id as string;
  const approved = await deletions(['approve', id, '--approved-by', 'bob@ops'], approverEnv(env));
  t.equal(approved.code, 0, show(approved));
  const run = await deletions(['run', id, '--executor-id', 'managed-executor'], env);
  t.equal(run.code, 0, show(run));
  t.match(run.json, { kind: 'completed', request_id: id });
  t.same(run.json.stages.map((s: { stage: string }) => s.stage), RUNNABLE_STAGES);

  const after = await fingerprint(superSql, bucket.store, redis, target.id);
  t.same({ rows: after.rows, versions: after.versions, keys: after.keys }, { rows: 0, versions: 0, keys: 0 }, 'the target is gone');
  t.same(await fingerprint(superSql, bucket.store, redis, bystander.id), before, 'the bystander is unchanged');
  const [tomb] = await superSql`select deletion_state from public.communities where id = ${target.id}`;
  t.same(tomb, { deletion_state: 'tombstone' });

  // The PL/pgSQL fence refuses a write to the tombstoned community, even
  // from the database's owner.
  await t.rejects(
    managedSql`insert into public.pubkey_allowlist (community_id, pubkey) values (${target.id}::uuid, 'managed-test')`,
    { code: '55000' },
    'a write to the deleted community is refused (55000)');
});
