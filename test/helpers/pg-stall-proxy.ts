// A TCP proxy in front of the test PostgreSQL server (loopback only) that can
// stall connections the way a broken network path or a frozen server does:
// a stalled connection stays open, and every byte either side sends is
// swallowed — no answer, no error, no reset, so no server-side timeout and no
// TCP keepalive ever ends a call waiting on it. Which connections stall is
// chosen by the application_name in their startup message (the CLI names its
// pools deletions-executor and deletions-heartbeat), or all of them, and the
// choice also applies to connections opened afterwards; or a connection
// stalls from the moment its client sends a given text (a query naming a
// function: the connection is up and answering until then).
import net from 'node:net';

export interface StallProxy {
  /** `url` with its host and port replaced by the proxy's. */
  via(url: string): string;
  /** From now on, swallow the traffic of connections whose application_name `match` accepts (all when omitted). */
  stall(match?: (applicationName: string | null) => boolean): void;
  /** From now on, a connection stalls when its client sends bytes containing `text` (those bytes are swallowed too). */
  stallOnText(text: string): void;
  /** The connections so far: application_name (null until the startup message was seen) and whether stalled. */
  connections(): { applicationName: string | null; stalled: boolean }[];
  close(): Promise<void>;
}

interface Pair {
  client: net.Socket;
  upstream: net.Socket;
  applicationName: string | null;
  head: Buffer;
  stalledByText: boolean;
}

/** application_name from the start of a connection's client bytes (an unencrypted StartupMessage), if it is there yet. */
function applicationNameOf(head: Buffer): string | null {
  const key = Buffer.from('application_name\0');
  const at = head.indexOf(key);
  if (at < 0) return null;
  const end = head.indexOf(0, at + key.length);
  return end < 0 ? null : head.subarray(at + key.length, end).toString('utf8');
}

export async function startStallProxy(t: { teardown(fn: () => unknown): void }, upstreamUrl: string): Promise<StallProxy> {
  const target = new URL(upstreamUrl);
  const pairs: Pair[] = [];
  let match: ((applicationName: string | null) => boolean) | null = null;
  let stallText: Buffer | null = null;
  const stalled = (p: Pair) => p.stalledByText || (match !== null && match(p.applicationName));
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    const pair: Pair = { client, upstream, applicationName: null, head: Buffer.alloc(0), stalledByText: false };
    pairs.push(pair);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.on('data', (chunk: Buffer) => {
      if (pair.applicationName === null && pair.head.length < 4096) {
        pair.head = Buffer.concat([pair.head, chunk]);
        pair.applicationName = applicationNameOf(pair.head);
      }
      if (stallText !== null && chunk.includes(stallText)) pair.stalledByText = true;
      if (!stalled(pair)) upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (!stalled(pair)) client.write(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  const close = async () => {
    for (const p of pairs) {
      p.client.destroy();
      p.upstream.destroy();
    }
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  t.teardown(close);
  return {
    via(url: string) {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    stall(m = () => true) {
      match = m;
    },
    stallOnText(text: string) {
      stallText = Buffer.from(text, 'utf8');
    },
    connections: () => pairs.map((p) => ({ applicationName: p.applicationName, stalled: stalled(p) })),
    close,
  };
}
