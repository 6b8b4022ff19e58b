// TEST-ONLY entry point of the deletions CLI (never shipped in bin/): the
// crash/resume tests (test/e2e) start `node --import tsx pausing-cli.ts
// <boundary> <deletions args…>`. It installs, in code, an executor hook that
// on reaching that step boundary (`after:<stage>`, `destructive_manifest_frozen`,
// `chunk_deleted:<n>`) writes `PAUSED <boundary>` to stderr and waits — still
// heartbeating its lease — until the test SIGKILLs it (a crash at exactly
// that point), asks it to shut down (SIGTERM/SIGINT, which releases the
// claim as usual) or lets it go on (SIGUSR2: the run continues from there,
// e.g. into a store the test has just stalled). It changes no decision: it
// only stops time between two steps. The production CLI (src/cli/index.ts) installs no hook and reads no
// variable that could hold a lease forever.
import { main } from '../../src/cli/main.js';
import { installExecutorHooks } from '../../src/cli/execute.js';

const [pauseAt, ...args] = process.argv.slice(2);
if (!pauseAt) {
  process.stderr.write('usage: pausing-cli.ts <boundary> <deletions arguments…>\n');
  process.exit(2);
}

installExecutorHooks({
  async onBoundary(boundary, shutdown) {
    if (boundary !== pauseAt) return;
    process.stderr.write(`PAUSED ${boundary}\n`);
    // A referenced timer keeps the event loop (and the heartbeat) alive.
    const keepAlive = setInterval(() => {}, 60_000);
    let resume = () => {};
    try {
      if (!shutdown.aborted) {
        await new Promise<void>((resolve) => {
          resume = () => resolve();
          process.once('SIGUSR2', resume);
          shutdown.addEventListener('abort', () => resolve(), { once: true });
        });
      }
    } finally {
      process.off('SIGUSR2', resume);
      clearInterval(keepAlive);
    }
  },
});

await main(args);
