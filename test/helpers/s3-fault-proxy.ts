// A fault-injecting HTTP proxy in front of the test S3 server (loopback only):
// forwards every request unchanged, except that while a fault is set for an
// operation (DeleteObjects, ListObjectVersions) it answers that operation
// with 503 SlowDown, the way S3 throttles, and while `html` holds an
// operation (or 'any') it answers it 200 with an HTML page, the way a
// misrouted load balancer or a maintenance page does. Counts what it
// faulted/forwarded.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type FaultableOperation = 'DeleteObjects' | 'ListObjectVersions';

export interface FaultProxy {
  endpoint: string;
  /** Operations currently answered with 503 SlowDown. */
  faults: Set<FaultableOperation>;
  /** Operations ('any': every request) answered 200 with an HTML page. */
  html: Set<FaultableOperation | 'any'>;
  faulted: Record<FaultableOperation, number>;
  /** Requests answered with the HTML page. */
  answeredHtml: number;
  forwarded: Record<FaultableOperation | 'other', number>;
  close(): Promise<void>;
}

const SLOW_DOWN =
  '<?xml version="1.0" encoding="UTF-8"?>\n' +
  '<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message><RequestId>fault-proxy</RequestId></Error>';

const HTML_PAGE = '<html><body><h1>Service temporarily under maintenance</h1></body></html>';

function operationOf(req: http.IncomingMessage): FaultableOperation | 'other' {
  const url = new URL(req.url ?? '/', 'http://proxy');
  if (req.method === 'POST' && url.searchParams.has('delete')) return 'DeleteObjects';
  if (req.method === 'GET' && url.searchParams.has('versions')) return 'ListObjectVersions';
  return 'other';
}

export async function startFaultProxy(upstream: string): Promise<FaultProxy> {
  const target = new URL(upstream);
  const faults = new Set<FaultableOperation>();
  const html = new Set<FaultableOperation | 'any'>();
  let answeredHtml = 0;
  const faulted = { DeleteObjects: 0, ListObjectVersions: 0 };
  const forwarded = { DeleteObjects: 0, ListObjectVersions: 0, other: 0 };
  const agent = new http.Agent({ keepAlive: true });
  const server = http.createServer((req, res) => {
    const op = operationOf(req);
    if (html.has('any') || (op !== 'other' && html.has(op))) {
      answeredHtml += 1;
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/html', 'content-length': Buffer.byteLength(HTML_PAGE) });
        res.end(req.method === 'HEAD' ? undefined : HTML_PAGE);
      });
      return;
    }
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
    html,
    faulted,
    get answeredHtml() {
      return answeredHtml;
    },
    forwarded,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        agent.destroy();
        server.close(() => resolve());
      }),
  };
}
