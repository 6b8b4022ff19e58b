// A drain whose only outcome is a lost lease exits 3, as `run` does for
// lease_lost (it exited 0, as if it had done its work). Through the real
// CLI: the drain is paused after `fenced` (test/helpers/pausing-cli.ts), its
// lease is ended and a successor claims the request and holds it, then the
// drain goes on into a step of a lease that is no longer its own.
import t from 'tap';
import {
  e2eStores, expireLease, requestRow, seedCommunity, show, startDeletions, submitAndApprove, victimEnv,
} from '../helpers/e2e.js';

const { sql, bucket, redis, env } = await e2eStores(t);
const tag = `drainlost-${process.pid}`;

t.test('drain: its only claim lost to a successor, exit 3 with lease_lost counted', async (t) => {
  const target = await seedCommunity(sql, bucket.store, redis, `target-${tag}.example`);
  const id = await submitAndApprove(sql, bucket.store, target.host);
  const drain = startDeletions(['drain', '--executor-id', 'drain-victim'], victimEnv(env), { pauseAt: 'after:fenced' });
  t.equal(await drain.paused, 'after:fenced');
  await expireLease(sql, id);
  // The successor claims (generation 2), does one step and holds the lease.
  const successor = startDeletions(['run', id, '--executor-id', 'successor'], victimEnv(env), { pauseAt: 'after:drained' });
  t.equal(await successor.paused, 'after:drained');
  t.match(await requestRow(sql, id), { stage: 'bindings_removed', lease_owner: 'successor', lease_generation: '2' });
  process.kill(drain.pid, 'SIGUSR2');
  const r = await drain.done;
  t.equal(r.code, 3, show(r));
  t.match(r.json, {
    executor_id: 'drain-victim', mode: 'drain', claimed: 1, completed: 0, failed: 0, lease_lost: 1, interrupted_by: null,
    outcomes: [{ kind: 'lease_lost', request_id: id }],
  });
  process.kill(successor.pid, 'SIGUSR2');
  const done = await successor.done;
  t.equal(done.code, 0, show(done));
  t.match(await requestRow(sql, id), { stage: 'retention_pending', lease_generation: '2' }, 'the successor completed it');
});
