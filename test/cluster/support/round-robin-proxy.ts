// The one address partners use in front of two query services: round-robin over them, and, as
// nginx does with `proxy_next_upstream error`, a request whose connection to one service is
// refused is passed to the next. A connection that breaks after the request went out is not
// retried (nginx does not resend a POST either): the partner gets 502. It forwards the client's
// address in X-Forwarded-For, and the services trust one hop.
import { createServer, request, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Upstream {
  host: string;
  port: number;
}

export interface RoundRobinProxy {
  url: string;
  close(): Promise<void>;
}

/** The response header naming the upstream (its index) that answered: for a test that counts per instance. */
export const upstreamHeader = 'x-test-upstream';

export async function startRoundRobinProxy(upstreams: Upstream[]): Promise<RoundRobinProxy> {
  let next = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const first = next++ % upstreams.length;
      const attempt = (tried: number) => {
        const index = (first + tried) % upstreams.length;
        const { host, port } = upstreams[index]!;
        // The client's address appended, as nginx's $proxy_add_x_forwarded_for does.
        const forwardedFor = [req.headers['x-forwarded-for'], req.socket.remoteAddress].filter(Boolean).join(', ');
        const headers: IncomingHttpHeaders = { ...req.headers, host: `${host}:${port}`, connection: 'close', 'x-forwarded-for': forwardedFor };
        // A connection of its own per request (agent: false): a refused one is then always a clean ECONNREFUSED.
        const upstream = request({ host, port, method: req.method, path: req.url, headers, agent: false }, (answer) => {
          res.writeHead(answer.statusCode ?? 502, { ...answer.headers, [upstreamHeader]: String(index) });
          answer.pipe(res);
          answer.on('error', () => res.destroy());
        });
        upstream.on('error', (error: NodeJS.ErrnoException) => {
          if (error.code === 'ECONNREFUSED' && tried + 1 < upstreams.length) return attempt(tried + 1);
          if (res.headersSent) return res.destroy();
          res.writeHead(502, { 'content-type': 'text/plain' }).end(`bad gateway: ${error.code ?? error.message}`);
        });
        upstream.end(body);
      };
      attempt(0);
    });
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
