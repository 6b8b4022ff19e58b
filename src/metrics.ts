// Prometheus metrics of an executor process (`worker`/`drain --metrics-port`),
// served on /metrics by prom-client. Requests by state are read from SQL
// (community_deletion.queue_status()) at every scrape, so they are the
// fleet's truth, not this process's view; the other metrics count what this
// process did (claims, stage durations, failures, retries, blocks) and when
// it last proved it was alive (a lease renewal or an idle poll).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ExecutorEvent } from './executor.js';
import type { QueueStatusRow } from './engine.js';

export const METRIC_NAMES = [
  'deletions_requests',
  'deletions_queue_status_errors_total',
  'deletions_claims_total',
  'deletions_completed_total',
  'deletions_stage_duration_seconds',
  'deletions_failures_total',
  'deletions_retries_total',
  'deletions_blocks_total',
  'deletions_last_heartbeat_timestamp_seconds',
] as const;

export class ExecutorMetrics {
  readonly registry = new Registry();
  private readonly claims: Counter;
  private readonly completed: Counter;
  private readonly stageDuration: Histogram;
  private readonly failures: Counter;
  private readonly retries: Counter;
  private readonly blocks: Counter;
  private readonly lastHeartbeat: Gauge;

  constructor(queueStatus: () => Promise<QueueStatusRow[]>, labels: { executor_id: string; mode: string }) {
    const registers = [this.registry];
    this.registry.setDefaultLabels(labels);
    const queueErrors = new Counter({
      name: 'deletions_queue_status_errors_total', help: 'Scrapes whose queue_status() query failed (deletions_requests then reads 0 series)', registers,
    });
    new Gauge({
      name: 'deletions_requests',
      help: 'Deletion requests by state, from community_deletion.queue_status() at scrape time',
      labelNames: ['state'],
      registers,
      async collect() {
        this.reset();
        try {
          for (const row of await queueStatus()) this.set({ state: row.state }, row.requests);
        } catch {
          queueErrors.inc();
        }
      },
    });
    this.claims = new Counter({ name: 'deletions_claims_total', help: 'Requests this process claimed', registers });
    this.completed = new Counter({ name: 'deletions_completed_total', help: 'Requests this process drove to retention_pending', registers });
    this.stageDuration = new Histogram({
      name: 'deletions_stage_duration_seconds',
      help: 'Duration of each executor stage step that completed',
      labelNames: ['stage'],
      buckets: [0.05, 0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600],
      registers,
    });
    this.failures = new Counter({
      name: 'deletions_failures_total', help: 'Failures recorded against a request, by stage and kind (transient|permanent)', labelNames: ['stage', 'kind'], registers,
    });
    this.retries = new Counter({ name: 'deletions_retries_total', help: 'Transient failures recorded with a retry scheduled (not blocked)', labelNames: ['stage'], registers });
    this.blocks = new Counter({ name: 'deletions_blocks_total', help: 'Requests this process left durably blocked', labelNames: ['stage'], registers });
    this.lastHeartbeat = new Gauge({
      name: 'deletions_last_heartbeat_timestamp_seconds', help: 'Unix time of the last lease renewal or idle poll of this process', registers,
    });
  }

  /** This process is alive (an idle poll or a lease renewal). */
  beat(now = Date.now()): void {
    this.lastHeartbeat.set(now / 1000);
  }

  observe(e: ExecutorEvent): void {
    switch (e.event) {
      case 'claim':
        this.claims.inc();
        this.beat();
        break;
      case 'heartbeat':
        this.beat();
        break;
      case 'stage_done':
        this.stageDuration.observe({ stage: e.stage }, e.ms / 1000);
        break;
      case 'completed':
        this.completed.inc();
        break;
      case 'failure':
        this.failures.inc({ stage: e.stage, kind: e.transient ? 'transient' : 'permanent' });
        if (e.blocked) this.blocks.inc({ stage: e.stage });
        else this.retries.inc({ stage: e.stage });
        break;
      default:
        break;
    }
  }

  /** Serves GET /metrics; resolves with the bound port (0 picks a free one). */
  async serve(port: number, host: string): Promise<{ port: number; close(): Promise<void> }> {
    const server = http.createServer((req, res) => {
      if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: GET /metrics\n');
        return;
      }
      this.registry
        .metrics()
        .then((body) => res.writeHead(200, { 'content-type': this.registry.contentType }).end(body))
        .catch((error: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`${(error as Error).message}\n`));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    server.unref();
    return {
      port: (server.address() as AddressInfo).port,
      close: () => new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
    };
  }
}
