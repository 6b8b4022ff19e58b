// A fault-injecting HTTP proxy in front of the test S3 server (loopback only):
// forwards every request unchanged, except that while a fault is set for an
// operation (DeleteObjects, ListObjectVersions) it answers that operation
// with 503 SlowDown, the way S3 throttles. Counts what it faulted/forwarded.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type FaultableOperation = 'DeleteObjects' | 'ListObjectVersions';

export interface FaultProxy {
  endpoint: string;
  /** Operations currently answered with 503 SlowDown. */
  faults: Set<FaultableOperation>;
  faulted: Record<FaultableOperation, number>;
  forwarded: Record<FaultableOperation | 'other', number>;
  close(): Promise<void>;
}

const SLOW_DOWN =
  '<?xml version="1.0" encoding="UTF-8"?>\n' +
  '<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message><RequestId>fault-proxy</RequestId></Error>';

function operationOf(req: http.IncomingMessage): FaultableOperation | 'other' {
  const url = new URL(req.url ?? '/', 'http://proxy');
  if (req.method === 'POST' && url.searchParams.has('delete')) return 'DeleteObjects';
  if (req.method === 'GET' && url.searchParams.has('versions')) return 'ListObjectVersions';
  return 'other';
}

export async function startFaultProxy(upstream: string): Promise<FaultProxy> {
  const target = new URL(upstream);
  const faults = new Set<FaultableOperation>();
  const faulted = { DeleteObjects: 0, ListObjectVersions: 0 };
  const forwarded = { DeleteObjects: 0, ListObjectVersions: 0, other: 0 };
  const agent = new http.Agent({ keepAlive: true });
  const server = http.createServer((req, res) => {
    const op = operationOf(req);
    if (op !== 'other' && faults.has(op)) {
      faulted[op] += 1;
      req.resume();
      req.on('end', () => {
        res.writeHead(503, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(SLOW_DOWN) });
        res.end(SLOW_DOWN);
      });
      return;
    }
    forwarded[op] += 1;
    const out = http.request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers, agent },
      (upstreamRes) => {
        res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.headers);
        upstreamRes.pipe(res);
      },
    );
    out.on('error', (error) => res.destroy(error));
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    faults,
    faulted,
    forwarded,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        agent.destroy();
        server.close(() => resolve());
      }),
  };
}
