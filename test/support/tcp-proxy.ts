import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * A loopback TCP proxy in front of a real server, to make it fail as an outage would, without
 * touching the server that other test files share:
 * - `cut()` drops every open connection and refuses new ones until `restore()` (a server away);
 * - `freeze()` keeps connections open and accepts new ones but forwards nothing until `thaw()`,
 *   which delivers what was held (a server that hangs: sockets open, nothing answered).
 */
export interface TcpProxy {
  /** host:port of the proxy. */
  address: string;
  port: number;
  cut(): void;
  restore(): void;
  freeze(): void;
  thaw(): void;
  close(): Promise<void>;
}

interface Pair {
  client: Socket;
  upstream?: Socket;
  /** Bytes held while frozen, per direction. */
  toUpstream: Buffer[];
  toClient: Buffer[];
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const pairs = new Set<Pair>();
  let down = false;
  let frozen = false;

  function open(pair: Pair): void {
    const upstream = connect(target.port, target.host);
    pair.upstream = upstream;
    upstream.on('error', () => undefined);
    upstream.on('data', (chunk: Buffer) => (frozen ? pair.toClient.push(chunk) : pair.client.write(chunk)));
    upstream.on('close', () => pair.client.destroy());
    for (const chunk of pair.toUpstream.splice(0)) upstream.write(chunk);
  }

  const server: Server = createServer((client) => {
    if (down) {
      client.destroy();
      return;
    }
    const pair: Pair = { client, toUpstream: [], toClient: [] };
    pairs.add(pair);
    client.on('error', () => undefined);
    client.on('data', (chunk: Buffer) => (frozen || !pair.upstream ? pair.toUpstream.push(chunk) : pair.upstream.write(chunk)));
    client.on('close', () => {
      pair.upstream?.destroy();
      pairs.delete(pair);
    });
    if (!frozen) open(pair);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const destroyAll = () => {
    for (const pair of pairs) {
      pair.client.destroy();
      pair.upstream?.destroy();
    }
  };
  return {
    address: `127.0.0.1:${port}`,
    port,
    cut() {
      down = true;
      destroyAll();
    },
    restore() {
      down = false;
    },
    freeze() {
      frozen = true;
    },
    thaw() {
      frozen = false;
      for (const pair of pairs) {
        if (!pair.upstream) open(pair);
        else for (const chunk of pair.toUpstream.splice(0)) pair.upstream.write(chunk);
        for (const chunk of pair.toClient.splice(0)) pair.client.write(chunk);
      }
    },
    close() {
      destroyAll();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * A proxy in front of the server of `url` (mongodb:// or redis://), and the URL that reaches that
 * server through it. A MongoDB URL is made a direct connection without its replica set, or the
 * driver would discover the replica set's member and go around the proxy.
 */
export async function startProxyTo(url: string): Promise<{ proxy: TcpProxy; url: string }> {
  const parsed = new URL(url);
  const defaultPort = parsed.protocol === 'mongodb:' ? 27017 : 6379;
  const proxy = await startTcpProxy({ host: parsed.hostname, port: Number(parsed.port || defaultPort) });
  parsed.host = proxy.address;
  if (parsed.protocol === 'mongodb:') {
    parsed.searchParams.delete('replicaSet');
    parsed.searchParams.set('directConnection', 'true');
  }
  return { proxy, url: parsed.toString() };
}
