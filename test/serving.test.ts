// src/serving.ts against real PostgreSQL: the host application's serving-write
// lease (heartbeat, protected effect, verify, guarded write, release) racing a
// real executor session that quiesces, fences and aborts the community.
// Leases are long enough that no busy machine loses one by accident; the
// tests about expiry wait for it by polling with a wide budget, never by a
// fixed sleep, and no assertion bounds how fast something happens.
import { setTimeout as sleep } from 'node:timers/promises';
import postgres from 'postgres';
import t from 'tap';
import { sqlStateOf } from '../src/errors.js';
import {
  acquireServingLease,
  guardedWrite,
  isCommunityWriteRefused,
  ServingLeaseDeniedError,
  ServingLeaseLostError,
  type TransactionSql,
} from '../src/serving.js';
import { approveAsSecondLogin, createTestDatabase } from './helpers/db.js';

const db = await createTestDatabase();
const sql = db.sql;
// The executor / operator side: its own pool, so its sessions really run
// concurrently with the lease's renewals and writes.
const exec = postgres(db.url, { max: 2, onnotice: () => {} });
t.teardown(async () => {
  await exec.end({ timeout: 5 });
  await db.drop();
});

/** The SQLSTATE a promise rejects with, or '00000' when it resolves. */
async function sqlStateFrom(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
    return '00000';
  } catch (error) {
    return sqlStateOf(error);
  }
}

/** A seeded community (tests.seed_community from db/tests/fixtures/helpers.sql). */
async function seedCommunity(host: string): Promise<string> {
  const [row] = await sql<{ id: string }[]>`select tests.seed_community(${host}, 1) as id`;
  return row!.id;
}

/** Submitted by alice, inventory frozen (empty owned prefixes), approved by bob, claimed by the executor. */
async function claimedDeletion(host: string, communityId: string): Promise<{ requestId: string; generation: string }> {
  const [request] = await exec<{ id: string }[]>`select id from community_deletion.submit(${host}, 'alice', 'serving test')`;
  const requestId = request!.id;
  await exec`
    select community_deletion.freeze_inventory(${requestId}::uuid, jsonb_build_object(
      'version', 1, 'chunk_size', 10000,
      'prefixes', (select jsonb_agg(jsonb_build_object('prefix', p, 'object_count', 0, 'total_bytes', 0,
                                                       'keys_digest', encode(sha256(''::bytea), 'hex'))
                                    order by p collate "C")
                     from unnest(community_deletion._owned_prefixes(${communityId}::uuid)) p)), tests.store_identity())`;
  await approveAsSecondLogin(exec, requestId, 'bob', 'serving test');
  const [claim] = await exec<{ lease_generation: string }[]>`
    select lease_generation from community_deletion.claim('executor-1', ${requestId}::uuid, 3600)`; // the test ends the lease, never the clock
  return { requestId, generation: String(claim!.lease_generation) };
}

function beginQuiescing(d: { requestId: string; generation: string }) {
  return exec`select community_deletion.begin_quiescing(${d.requestId}::uuid, 'executor-1', ${d.generation}::bigint)`;
}

function fence(d: { requestId: string; generation: string }) {
  return exec<{ fence_generation: string }[]>`
    select community_deletion.fence(${d.requestId}::uuid, 'executor-1', ${d.generation}::bigint) as fence_generation`;
}

async function leaseRowExists(id: string): Promise<boolean> {
  const [row] = await sql<{ n: number }[]>`select count(*)::int as n from community_deletion.serving_write_leases where id = ${id}::uuid`;
  return row!.n === 1;
}

function writeAudit(tx: TransactionSql | postgres.Sql, communityId: string, action: string) {
  return tx`insert into public.audit_log (community_id, actor, action) values (${communityId}::uuid, 'serving-test', ${action})`;
}

async function auditRows(communityId: string, action: string): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from public.audit_log where community_id = ${communityId}::uuid and action = ${action}`;
  return row!.n;
}

/** Polls until `condition` holds; the wide budget only turns a hang into a failure. */
async function waitUntil(condition: () => boolean | Promise<boolean>, what: string, budgetMs = 120_000): Promise<void> {
  const deadline = Date.now() + budgetMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await sleep(20);
  }
}

/** An effect that runs until its signal aborts (it never finishes by itself). */
function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise<never>((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

/** A promise the test settles by hand: an effect that ignores its signal. */
function manual(): { promise: Promise<string>; resolve: (value: string) => void } {
  let resolve!: (value: string) => void;
  const promise = new Promise<string>((r) => (resolve = r));
  return { promise, resolve };
}

t.test('A long external effect under src/serving.ts keeps its lease across quiescing', async (t) => {
  const host = 'long-effect.example';
  const community = await seedCommunity(host);
  const deletion = await claimedDeletion(host, community);
  const lease = await acquireServingLease(sql, {
    communityId: community,
    operation: 'media_upload',
    owner: 'relay-1',
    leaseSeconds: 30,
    renewEverySeconds: 0.2,
  });
  t.teardown(() => lease.finish().then(() => undefined));
  t.equal(lease.fenceGeneration, '0', 'admitted at the community fence generation, as text');
  t.equal(lease.generation, '1');
  const leaseUntil = async () => {
    const [row] = await sql<{ until: Date }[]>`select lease_until as until from community_deletion.serving_write_leases where id = ${lease.id}::uuid`;
    return row!.until.getTime();
  };
  const firstExpiry = await leaseUntil();

  await beginQuiescing(deletion);
  await t.rejects(
    acquireServingLease(sql, { communityId: community, operation: 'late_upload', leaseSeconds: 30, renewEverySeconds: 1 }),
    ServingLeaseDeniedError,
    'quiescing admits no new lease',
  );

  // The effect runs until the test lets it finish.
  const upload = manual();
  let effectSignal: AbortSignal | undefined;
  const effect = lease.protect(async (signal) => {
    effectSignal = signal;
    return upload.promise;
  });

  // Only the heartbeat can move the expiry past the one set at admission.
  await waitUntil(async () => (await leaseUntil()) > firstExpiry, 'a renewal while quiescing');
  t.pass('the lease was renewed beyond its first expiry while quiescing');
  t.equal(await sqlStateFrom(fence(deletion)), 'DL5D1', 'fence refused while the admitted effect runs');

  upload.resolve('uploaded');
  t.equal(await effect, 'uploaded', 'the effect completed under the lease');
  t.equal(effectSignal?.aborted, false, 'quiescing did not cancel the effect');
  t.equal(lease.status, 'held');

  await lease.writeTransaction((tx) => writeAudit(tx, community, 'upload recorded'));
  t.equal(await auditRows(community, 'upload recorded'), 1, 'the guarded write committed while quiescing');
  t.equal(await sqlStateFrom(writeAudit(sql, community, 'unguarded')), '55000', 'a write without the lease guard is fenced');
  t.equal(
    await sqlStateFrom(guardedWrite(sql, community, (tx) => writeAudit(tx, community, 'unguarded'))),
    '55000',
    'guardedWrite refuses a quiescing community',
  );
  t.equal(await sqlStateFrom(fence(deletion)), 'DL5D1', 'still not drained before finish()');

  t.equal(await lease.finish(), true, 'finish released the live lease');
  const [fenced] = await fence(deletion);
  t.equal(String(fenced?.fence_generation), '1', 'the fence closes once the lease is released');

  const refused = await guardedWrite(sql, community, (tx) => writeAudit(tx, community, 'after fence')).catch((e: unknown) => e);
  t.equal(sqlStateOf(refused), '55000', 'a further write is rejected with 55000');
  t.ok(isCommunityWriteRefused(refused));
  await t.rejects(lease.writeTransaction((tx) => writeAudit(tx, community, 'after finish')), ServingLeaseLostError);
  t.equal(await auditRows(community, 'after fence') + (await auditRows(community, 'after finish')), 0, 'nothing written after the fence');
});

t.test('a lost heartbeat cancels the protected effect', async (t) => {
  const community = await seedCommunity('lost-heartbeat.example');
  const lease = await acquireServingLease(sql, {
    communityId: community,
    operation: 'git_push',
    leaseSeconds: 30,
    renewEverySeconds: 0.2,
  });
  t.teardown(() => lease.finish().then(() => undefined));

  let effectSignal: AbortSignal | undefined;
  // The effect never finishes by itself: only a cancellation ends it.
  const effect = lease.protect(async (signal) => {
    effectSignal = signal;
    return untilAborted(signal);
  });
  effect.catch(() => {});
  await waitUntil(() => effectSignal !== undefined, 'the effect to start');
  // Another session removes the lease (as the reaper or an operator would).
  await exec`delete from community_deletion.serving_write_leases where id = ${lease.id}::uuid`;

  const error = await effect.then(() => undefined, (e: unknown) => e);
  t.type(error, ServingLeaseLostError, 'protect() rejects with the typed error');
  t.equal((error as ServingLeaseLostError).reason, 'refused', 'because a renewal was refused (the lease is far from expiring)');
  t.equal(sqlStateOf(error), 'DL5S1', 'classifiable by SQLSTATE');
  t.equal(effectSignal?.aborted, true, "the effect's signal was aborted");
  t.type(effectSignal?.reason, ServingLeaseLostError, 'with the lost error as reason');
  t.equal(lease.status, 'lost');

  await t.rejects(lease.verify(), ServingLeaseLostError, 'verify() fails after the lease is lost');
  let ran = false;
  await t.rejects(
    lease.protect(async () => {
      ran = true;
    }),
    ServingLeaseLostError,
  );
  t.equal(ran, false, 'a lost lease runs no further effect');
  await t.rejects(lease.writeTransaction((tx) => writeAudit(tx, community, 'stale write')), ServingLeaseLostError);
  t.equal(await auditRows(community, 'stale write'), 0, 'the stale guarded write wrote nothing');
  t.equal(await lease.finish(), false, 'finish() reports the lease was already gone');
});

t.test('an abort that bumps the fence generation abandons an effect that ignores its signal', async (t) => {
  const host = 'abort-moves-on.example';
  const community = await seedCommunity(host);
  const deletion = await claimedDeletion(host, community);
  const lease = await acquireServingLease(sql, {
    communityId: community,
    operation: 'push_notification',
    leaseSeconds: 30,
    renewEverySeconds: 0.2,
  });
  t.teardown(() => lease.finish().then(() => undefined));
  await beginQuiescing(deletion);

  const stubborn = manual();
  t.teardown(() => stubborn.resolve('late'));
  const effect = lease.protect(async () => stubborn.promise);
  effect.catch(() => {});
  t.equal(lease.status, 'held', 'held while quiescing');

  // Abort refuses while a live lease exists, so let this one lapse for the
  // abort, then put its expiry back: only the fence generation makes it stale.
  // The community lock is taken first so no renewal is half-way in between.
  await exec.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(community_deletion._community_lock_key(${community}::uuid))`;
    await tx`update community_deletion.serving_write_leases set lease_until = now() - interval '1 second' where id = ${lease.id}::uuid`;
    await tx`select community_deletion.abort(${deletion.requestId}::uuid, 'carol', 'operator rescue')`;
    await tx`update community_deletion.serving_write_leases set lease_until = now() + interval '1 minute' where id = ${lease.id}::uuid`;
  });
  const [state] = await sql<{ deletion_state: string; g: string }[]>`
    select deletion_state, deletion_fence_generation as g from public.communities where id = ${community}::uuid`;
  t.same({ ...state }, { deletion_state: 'active', g: '1' }, 'the community is active again at a new fence generation');

  // The stubborn effect never settles before teardown: an implementation that
  // only awaited it would hang here (until the test's budget fails it).
  const error = await effect.then(() => 'resolved', (e: unknown) => e);
  t.type(error, ServingLeaseLostError, 'the protected promise rejects although the effect is still running');
  t.equal((error as ServingLeaseLostError).reason, 'refused');
  t.equal(lease.signal.aborted, true);
  await t.rejects(lease.verify(), ServingLeaseLostError);
});

t.test('renewals that cannot reach PostgreSQL lose the lease at its expiry, not before', async (t) => {
  const community = await seedCommunity('unreachable.example');
  // A real pool pointed at a closed port: every renewal fails with ECONNREFUSED.
  const unreachable = postgres('postgres://postgres@127.0.0.1:1/none', { max: 1, connect_timeout: 1, onnotice: () => {} });
  t.teardown(() => unreachable.end({ timeout: 1 }));
  const leaseMs = 2000;
  // The lease cannot expire earlier than leaseMs after the acquisition was
  // sent, which is no earlier than this instant; polling (not fixed sleeps)
  // keeps the assertions exact however slow the machine is.
  const before = Date.now();
  const lease = await acquireServingLease(sql, {
    communityId: community,
    operation: 'media_upload',
    leaseSeconds: leaseMs / 1000,
    renewEverySeconds: 0.3,
    heartbeatSql: unreachable,
  });
  t.teardown(() => lease.finish().then(() => undefined));

  // Renewals fail (ECONNREFUSED) from the first one on; the lease is given
  // up only once it has expired.
  await waitUntil(() => lease.status === 'lost', 'the lease to be lost');
  const lostAfter = Date.now() - before;
  t.ok(lostAfter >= leaseMs - 25, `not lost before its expiry (lost after ${lostAfter} ms of a ${leaseMs} ms lease)`);
  t.type(lease.signal.reason, ServingLeaseLostError);
  t.equal((lease.signal.reason as ServingLeaseLostError).reason, 'expired');
  await t.rejects(lease.protect(async () => 'never'), ServingLeaseLostError);
});

t.test('a renewal stalled behind the community lock loses the lease at its expiry', async (t) => {
  const community = await seedCommunity('stalled.example');
  const lease = await acquireServingLease(sql, {
    communityId: community,
    operation: 'media_upload',
    leaseSeconds: 2,
    renewEverySeconds: 0.5,
  });
  t.teardown(() => lease.finish().then(() => undefined));

  let lostAfterExpiry: string | undefined;
  // The executor side holds the community lock exclusively past the lease's expiry.
  await exec.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(community_deletion._community_lock_key(${community}::uuid))`;
    // The last renewal that got through was sent before the lock was taken, so
    // the lease expires within 2 s from here (polled with a wide budget).
    await waitUntil(() => lease.status === 'lost', 'the stalled lease to expire locally');
    lostAfterExpiry = lease.status;
  });
  t.equal(lostAfterExpiry, 'lost', 'the stalled renewal did not keep the lease: it expired locally');
  t.equal((lease.signal.reason as ServingLeaseLostError).reason, 'expired');
  await t.rejects(lease.verify(), ServingLeaseLostError, 'PostgreSQL agrees the lease has expired');
});

t.test('acquisition is refused once the community is quiescing or fenced', async (t) => {
  const host = 'refused.example';
  const community = await seedCommunity(host);
  const deletion = await claimedDeletion(host, community);
  await beginQuiescing(deletion);
  const quiescing = await acquireServingLease(sql, { communityId: community, operation: 'upload' }).catch((e: unknown) => e);
  t.type(quiescing, ServingLeaseDeniedError, 'quiescing: denied');
  t.equal(sqlStateOf(quiescing), 'DL5S1');
  t.equal(sqlStateOf((quiescing as ServingLeaseDeniedError).cause), 'DL5S1', 'the database refusal is the cause');

  await fence(deletion);
  await t.rejects(acquireServingLease(sql, { communityId: community, operation: 'upload' }), ServingLeaseDeniedError, 'fenced: denied');
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from community_deletion.serving_write_leases where community_id = ${community}::uuid`;
  t.equal(row!.n, 0, 'no lease row was created');

  const unknown = await acquireServingLease(sql, {
    communityId: '00000000-0000-4000-8000-000000000000',
    operation: 'upload',
  }).catch((e: unknown) => e);
  t.notOk(unknown instanceof ServingLeaseDeniedError, 'an unknown community is not a denial');
  t.equal(sqlStateOf(unknown), 'DL1N2');
});

t.test('verify() asks PostgreSQL, not only the heartbeat', async (t) => {
  const community = await seedCommunity('verify.example');
  const lease = await acquireServingLease(sql, {
    communityId: community,
    operation: 'git_push',
    leaseSeconds: 60,
    renewEverySeconds: 30,
  });
  t.teardown(() => lease.finish().then(() => undefined));
  await lease.verify();
  t.pass('a live lease verifies');
  await exec`delete from community_deletion.serving_write_leases where id = ${lease.id}::uuid`;
  const error = await lease.verify().then(() => undefined, (e: unknown) => e);
  t.type(error, ServingLeaseLostError, 'a lease gone from the table fails verify() before any renewal');
  t.equal((error as ServingLeaseLostError).reason, 'refused');
  t.equal(lease.status, 'lost', 'and the lease is marked lost');
  t.equal(lease.signal.aborted, true);
});

t.test('protect() verifies before the effect starts and after it settles', async (t) => {
  const community = await seedCommunity('protect-verifies.example');
  // A heartbeat too slow to notice anything during this test: only the
  // verifications inside protect() can.
  const slow = { communityId: community, operation: 'git_push', leaseSeconds: 60, renewEverySeconds: 30 };

  const before = await acquireServingLease(sql, slow);
  t.teardown(() => before.finish().then(() => undefined));
  await exec`delete from community_deletion.serving_write_leases where id = ${before.id}::uuid`;
  let ran = false;
  await t.rejects(
    before.protect(async () => {
      ran = true;
    }),
    ServingLeaseLostError,
    'a lease already gone in PostgreSQL is refused up front',
  );
  t.equal(ran, false, 'the effect never started');

  const after = await acquireServingLease(sql, slow);
  t.teardown(() => after.finish().then(() => undefined));
  const error = await after
    .protect(async () => {
      // The lease lapses while the effect runs (here: removed by another session).
      await exec`delete from community_deletion.serving_write_leases where id = ${after.id}::uuid`;
      return 'pushed';
    })
    .catch((e: unknown) => e);
  t.type(error, ServingLeaseLostError, 'an effect that finished after its lease lapsed is reported as unprotected');
  t.equal(after.status, 'lost');
});

t.test('finish() is idempotent and releases the lease', async (t) => {
  const community = await seedCommunity('finish.example');
  const lease = await acquireServingLease(sql, {
    communityId: community,
    operation: 'media_upload',
    leaseSeconds: 30,
    renewEverySeconds: 0.2,
  });
  t.equal(await leaseRowExists(lease.id), true);
  const [first, second] = await Promise.all([lease.finish(), lease.finish()]);
  t.equal(first, true, 'the first finish released the live lease');
  t.equal(second, true, 'a concurrent finish shares its result');
  t.equal(await lease.finish(), true, 'a later finish returns the same result without failing');
  t.equal(await leaseRowExists(lease.id), false, 'the row is gone');
  t.equal(lease.status, 'released');
  t.equal(lease.signal.aborted, true, 'the signal tells running effects the lease is no longer held');
  t.equal((lease.signal.reason as ServingLeaseLostError).reason, 'released');
  await t.rejects(lease.verify(), ServingLeaseLostError, 'a released lease does not verify');
  await sleep(500);
  const [stats] = await sql<{ s: { active: number } }[]>`select community_deletion.serving_lease_stats() as s`;
  t.equal(stats!.s.active, 0, 'no renewal resurrected it');
});

t.test('`await using` releases the lease, also when the block throws', async (t) => {
  const community = await seedCommunity('await-using.example');
  let id = '';
  {
    await using lease = await acquireServingLease(sql, { communityId: community, operation: 'upload', leaseSeconds: 30, renewEverySeconds: 1 });
    id = lease.id;
    t.equal(await leaseRowExists(id), true, 'held inside the block');
  }
  t.equal(await leaseRowExists(id), false, 'released at the end of the block');

  let failingId = '';
  await t.rejects(
    (async () => {
      await using lease = await acquireServingLease(sql, { communityId: community, operation: 'upload', leaseSeconds: 30, renewEverySeconds: 1 });
      failingId = lease.id;
      await lease.protect(async () => {
        throw new Error('upload failed');
      });
    })(),
    /upload failed/,
    "the effect's own error reaches the caller",
  );
  t.not(failingId, '');
  t.equal(await leaseRowExists(failingId), false, 'released on the error path too');
});

t.test('guardedWrite admits writes to an active community and refuses a quiescing one before fn runs', async (t) => {
  const host = 'guarded-write.example';
  const community = await seedCommunity(host);
  await guardedWrite(sql, community, (tx) => writeAudit(tx, community, 'active write'));
  t.equal(await auditRows(community, 'active write'), 1, 'committed');

  const deletion = await claimedDeletion(host, community);
  await beginQuiescing(deletion);
  let called = false;
  const error = await guardedWrite(sql, community, async () => {
    called = true;
  }).catch((e: unknown) => e);
  t.equal(sqlStateOf(error), '55000');
  t.equal(called, false, 'refused before any work');
  t.equal(sqlStateOf(await guardedWrite(sql, '00000000-0000-4000-8000-000000000000', async () => 1).catch((e: unknown) => e)), '55000', 'a missing community is not writable');
});

t.test('a lease admitted on an active community guards its write like an ordinary one', async (t) => {
  const community = await seedCommunity('active-lease.example');
  await using lease = await acquireServingLease(sql, { communityId: community, operation: 'upload', leaseSeconds: 30, renewEverySeconds: 1 });
  const inserted = await lease.writeTransaction(async (tx) => {
    await writeAudit(tx, community, 'leased write');
    return 'ok';
  });
  t.equal(inserted, 'ok', "fn's result is returned");
  t.equal(await auditRows(community, 'leased write'), 1);
  await t.rejects(
    lease.writeTransaction(async (tx) => {
      await writeAudit(tx, community, 'rolled back');
      throw new Error('handler failed');
    }),
    /handler failed/,
  );
  t.equal(await auditRows(community, 'rolled back'), 0, 'a failing fn rolls the transaction back');
  t.equal(lease.status, 'held', "fn's own error does not cost the lease");
});

t.test('options are checked before anything is acquired', async (t) => {
  const community = await seedCommunity('options.example');
  await t.rejects(
    acquireServingLease(sql, { communityId: community, operation: 'upload', leaseSeconds: 5, renewEverySeconds: 5 }),
    RangeError,
    'the heartbeat must be faster than the lease',
  );
  await t.rejects(acquireServingLease(sql, { communityId: community, operation: 'upload', leaseSeconds: 2.5, renewEverySeconds: 1 }), RangeError);
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from community_deletion.serving_write_leases where community_id = ${community}::uuid`;
  t.equal(row!.n, 0);
});
