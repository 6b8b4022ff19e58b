// Process entry of bin/deletions.
import { main } from './main.js';

// Benchmarks (scripts/bench, "bounded memory") read the process's peak
// resident set: with DELETIONS_REPORT_RSS=1 one JSON line
// {"max_rss_kb": N} goes to stderr when the process exits, however it exits.
if (process.env.DELETIONS_REPORT_RSS === '1') {
  process.on('exit', () => {
    process.stderr.write(`${JSON.stringify({ max_rss_kb: process.resourceUsage().maxRSS })}\n`);
  });
}

await main();
