// Oversized bodies over real HTTP, as curl and Python's http.client send them: both read the
// fault (SOAP) or the 413 (other routes) instead of a broken pipe.
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRequestLimits } from '../rate-limit/index.js';
import { appWithLimits } from '../../../test/support/test-apps.js';
import { faultOf, ORDER_STATUS_URL } from '../../../test/support/soap-requests.js';

let app: FastifyInstance;
let base: string;

beforeAll(async () => {
  app = await appWithLimits(createRequestLimits({ requestsPerMinute: 300 }));
  base = await app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(() => app.close());

const FIVE_MB = 5 * 1024 * 1024;

/** Runs a client (the server answers in this process meanwhile): the body it read, then its status on the last line. */
function run(command: string, args: string[], input?: Buffer): Promise<{ status: string; body: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { timeout: 30_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', () => {
      if (stderr !== '') return reject(new Error(`${command} failed: ${stderr}`));
      const lines = stdout.split('\n');
      resolve({ status: lines.at(-1)!, body: lines.slice(0, -1).join('\n') });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(input);
  });
}

function curl(url: string, contentType: string) {
  // --data-binary @- sends standard input as the body, with its Content-Length.
  const args = ['-sS', '-o', '-', '-w', '\n%{http_code}', '-H', `content-type: ${contentType}`, '--data-binary', '@-', url];
  return run('curl', args, Buffer.alloc(FIVE_MB, 'a'));
}

function pythonHttpClient(url: string, contentType: string) {
  const script = `
import http.client, sys, urllib.parse
u = urllib.parse.urlsplit(sys.argv[1])
c = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
c.request('POST', u.path, body=b'a' * ${FIVE_MB}, headers={'Content-Type': sys.argv[2]})
r = c.getresponse()
sys.stdout.write(r.read().decode() + '\\n' + str(r.status))
`;
  return run('python3', ['-c', script, url, contentType]);
}

describe('a 5 MB body', () => {
  for (const [client, send] of [
    ['curl', curl],
    ["Python's http.client", pythonHttpClient],
  ] as const) {
    it(`to a SOAP endpoint: ${client} reads the Malformed SOAP request fault`, async () => {
      const answer = await send(`${base}${ORDER_STATUS_URL}`, 'text/xml; charset=utf-8');
      expect(answer.status).toBe('500');
      expect(faultOf(answer.body)).toEqual({ code: 'soap:Client', message: 'Malformed SOAP request' });
    });

    it(`to another route: ${client} reads 413`, async () => {
      const answer = await send(`${base}/api/partners/v1/orders/status`, 'application/json');
      expect(answer.status).toBe('413');
    });
  }

  it('past 16 MiB of it the connection is dropped instead of read on, and the service keeps serving', async () => {
    const { port } = new URL(base);
    let sentMiB = 0;
    const closed = await new Promise<boolean>((resolve) => {
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.write(`POST ${ORDER_STATUS_URL} HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml\r\nContent-Length: ${64 * 1024 * 1024}\r\n\r\n`);
        const chunk = Buffer.alloc(1024 * 1024, 'a');
        const send = (left: number): void => {
          if (left === 0 || socket.destroyed) return;
          sentMiB++;
          if (socket.write(chunk)) send(left - 1);
          else socket.once('drain', () => send(left - 1));
        };
        send(64);
      });
      socket.on('error', () => resolve(true));
      socket.on('close', () => resolve(true));
      setTimeout(() => resolve(false), 20_000).unref();
    });
    expect(closed).toBe(true);
    expect(sentMiB).toBeLessThan(64); // dropped before the client could send it all
    expect((await fetch(`${base}${ORDER_STATUS_URL}?wsdl`)).status).toBe(200);
  }, 30_000);

  it('the service keeps serving afterwards', async () => {
    expect((await fetch(`${base}${ORDER_STATUS_URL}?wsdl`)).status).toBe(200);
  });
});
