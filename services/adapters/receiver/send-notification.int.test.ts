// The sender against a real receiver on a loopback socket, one behaviour per path: every send
// ends within its deadline (each wait is bounded here), what a receiver may do wrong is reported
// as what it is, and nothing the sender reports repeats the request body (it holds the password).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { judgeDelivery } from '../../pusher/delivery-outcome.js';
import { sendNotification, type SendRequest, type SendResult } from './send-notification.js';

const PASSWORD = 'PW-MARKER-7f3a91';
const BODY = `<?xml version="1.0" encoding="utf-8"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/"><soapenv:Body><SendAdvanceShipmentNotificationRequest xmlns="http://www.promostandards.org/WSDL/OrderShipmentNotificationService/2.1.0/"><wsVersion xmlns="http://www.promostandards.org/WSDL/OrderShipmentNotificationService/2.1.0/SharedObjects/">2.1.0</wsVersion><id xmlns="http://www.promostandards.org/WSDL/OrderShipmentNotificationService/2.1.0/SharedObjects/">ossn</id><password xmlns="http://www.promostandards.org/WSDL/OrderShipmentNotificationService/2.1.0/SharedObjects/">${PASSWORD}</password></SendAdvanceShipmentNotificationRequest></soapenv:Body></soapenv:Envelope>`;
const DEADLINE_MS = 1_000;
/** Longer than any send may take: a send still pending then has lost its deadline. */
const BOUND_MS = DEADLINE_MS + 4_000;
const MiB = 1024 * 1024;

const M = 'http://www.promostandards.org/WSDL/OrderShipmentNotificationService/2.1.0/';
const soap = (inner: string) => `<?xml version="1.0"?><s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body>${inner}</s:Body></s:Envelope>`;
const response = (inner: string) => soap(`<SendAdvanceShipmentNotificationResponse xmlns="${M}">${inner}</SendAdvanceShipmentNotificationResponse>`);
const message = (code: number, description: string, severity: string) =>
  `<ServiceMessageArray xmlns="${M}SharedObjects/"><ServiceMessage><code>${code}</code><description>${description}</description><severity>${severity}</severity></ServiceMessage></ServiceMessageArray>`;

const xml = (res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'text/xml; charset=utf-8', ...headers });
  res.end(body);
};

/** What the receiver saw and did. */
const seen = { requests: [] as Array<{ url: string; headers: IncomingMessage['headers']; body: string }>, redirectFollowed: 0, huge: { written: 0, finished: false, closed: false } };
const sockets = new Set<Socket>();
const timers = new Set<NodeJS.Timeout>();
const later = (ms: number, work: () => void) => timers.add(setTimeout(work, ms));

const behaviours: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {
  '/ack': (_req, res) => xml(res, 200, response('<transactionId>T-1001</transactionId>'), { 'set-cookie': 'session=abc; Path=/' }),
  '/info': (_req, res) => xml(res, 200, response(message(100, 'Received', 'Information'))),
  '/error-message': (_req, res) => xml(res, 200, response(message(105, 'Authentication Credentials failed', 'Error'))),
  '/fault': (_req, res) => xml(res, 500, soap('<s:Fault><faultcode>s:Client</faultcode><faultstring>Invalid request</faultstring></s:Fault>')),
  '/500': (_req, res) => xml(res, 500, 'Internal Server Error'),
  '/503': (_req, res) => xml(res, 503, '', { 'retry-after': '120' }),
  '/429': (_req, res) => xml(res, 429, '', { 'retry-after': '7' }),
  '/302': (_req, res) => xml(res, 302, '', { location: '/redirected' }),
  '/redirected': (_req, res) => {
    seen.redirectFollowed++;
    xml(res, 200, response('<transactionId>followed</transactionId>'));
  },
  '/400': (_req, res) => xml(res, 400, 'Bad Request'),
  // Headers long after the deadline.
  '/slow': (_req, res) => later(DEADLINE_MS * 3, () => xml(res, 200, response('<transactionId>late</transactionId>'))),
  // Headers at once, then the body a little at a time, past the deadline.
  '/trickle': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/xml' });
    const whole = response('<transactionId>slow</transactionId>');
    let at = 0;
    const next = () => {
      if (res.destroyed) return;
      if (at >= whole.length) return void res.end();
      res.write(whole.slice(at, (at += 10)));
      later(200, next);
    };
    next();
  },
  '/never': () => undefined,
  // Headers and half a body, then the connection goes.
  '/cut': (req, res) => {
    res.writeHead(200, { 'content-type': 'text/xml', 'content-length': '1000' });
    res.write(response('').slice(0, 60), () => later(50, () => req.socket.destroy()));
  },
  // 10 MiB, written as fast as the socket takes it.
  '/huge': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/xml' });
    const chunk = Buffer.alloc(64 * 1024, 'x');
    res.on('close', () => (seen.huge.closed = true));
    res.on('finish', () => (seen.huge.finished = true));
    const write = () => {
      while (seen.huge.written < 10 * MiB && !res.destroyed) {
        seen.huge.written += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', write);
      }
      if (!res.destroyed) res.end();
    };
    write();
  },
};

let server: Server;
let base: string;
/** Every send started, to check none is left pending. */
const sends: Array<{ promise: Promise<unknown>; settled: boolean }> = [];

function send(path: string, more: Partial<SendRequest> = {}): Promise<SendResult> {
  const promise = sendNotification({ url: `${base}${path}`, body: BODY, timeoutMs: DEADLINE_MS, ...more });
  const entry = { promise, settled: false };
  sends.push(entry);
  promise.then(
    () => (entry.settled = true),
    () => (entry.settled = true),
  );
  return bounded(promise);
}

/** The promise, or a failure if it is still pending after BOUND_MS. */
function bounded<T>(promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`still pending after ${BOUND_MS} ms`)), BOUND_MS);
  });
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}

/** Nothing the sender hands back, thrown errors and their stacks and causes included, holds the password. */
function expectNoPassword(value: unknown): void {
  const seenObjects = new Set<unknown>();
  const text = (v: unknown): string => {
    if (v instanceof Error) {
      if (seenObjects.has(v)) return '';
      seenObjects.add(v);
      return `${v.message}\n${v.stack ?? ''}\n${text(v.cause)}`;
    }
    return JSON.stringify(v) ?? String(v);
  };
  expect(text(value)).not.toContain(PASSWORD);
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      seen.requests.push({ url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      (behaviours[req.url ?? ''] ?? ((_q, r) => xml(r, 404, '')))(req, res);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  base = `http://127.0.0.1:${address.port}`;
});

afterEach(() => {
  for (const timer of timers) clearTimeout(timer);
  timers.clear();
});

afterAll(async () => {
  // No send is left pending: each ended within its deadline, or the bound above failed its test.
  await bounded(Promise.allSettled(sends.map((s) => s.promise))).catch(() => undefined);
  expect(sends.filter((s) => !s.settled)).toEqual([]);
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('sendNotification against a receiver on a real socket', () => {
  const judged: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
    ['/ack', { kind: 'answer', status: 200 }, { kind: 'acknowledged', transactionId: 'T-1001', messages: [] }],
    ['/info', { kind: 'answer', status: 200 }, { kind: 'acknowledged', transactionId: undefined, messages: [{ code: '100', description: 'Received', severity: 'Information' }] }],
    ['/error-message', { kind: 'answer', status: 200 }, { kind: 'refused', reason: 'service message Error 105: Authentication Credentials failed' }],
    ['/fault', { kind: 'answer', status: 500 }, { kind: 'refused', reason: 'SOAP fault s:Client: Invalid request', status: 500 }],
    ['/500', { kind: 'answer', status: 500 }, { kind: 'transient', reason: 'HTTP 500' }],
    ['/503', { kind: 'answer', status: 503, headers: expect.objectContaining({ 'retry-after': '120' }) }, { kind: 'transient', status: 503, notBefore: expect.any(Date) }],
    ['/429', { kind: 'answer', status: 429 }, { kind: 'transient', status: 429, notBefore: expect.any(Date) }],
    ['/302', { kind: 'answer', status: 302 }, { kind: 'refused', reason: "HTTP 302, a redirect to /redirected: not followed (register the receiver's own URL)" }],
    ['/400', { kind: 'answer', status: 400 }, { kind: 'refused', reason: 'HTTP 400' }],
    ['/slow', { kind: 'timeout', timeoutMs: DEADLINE_MS }, { kind: 'transient', reason: `no whole answer within ${DEADLINE_MS} ms` }],
    ['/trickle', { kind: 'timeout', timeoutMs: DEADLINE_MS }, { kind: 'transient' }],
    ['/never', { kind: 'timeout', timeoutMs: DEADLINE_MS }, { kind: 'transient' }],
    ['/cut', { kind: 'connection', message: expect.stringMatching(/^the connection failed: /) }, { kind: 'transient' }],
    ['/huge', { kind: 'oversized', status: 200, maxAnswerBytes: MiB }, { kind: 'refused', reason: `HTTP 200: the answer is larger than ${MiB} bytes` }],
  ];

  it.each(judged)('%s', async (path, result, outcome) => {
    const sent = await send(path);
    expect(sent).toMatchObject(result);
    expect(judgeDelivery(sent)).toMatchObject(outcome);
    expectNoPassword(sent);
    expectNoPassword(judgeDelivery(sent));
  });

  it('posts the envelope as SOAP 1.1 with the operation\'s SOAPAction', async () => {
    await send('/ack');
    const request = seen.requests.findLast((r) => r.url === '/ack');
    expect(request?.body).toBe(BODY);
    expect(request?.headers).toMatchObject({ 'content-type': 'text/xml; charset=utf-8', soapaction: '"sendAdvanceShipmentNotification"' });
  });

  it('keeps no cookie: a Set-Cookie answered is not sent back', async () => {
    await send('/ack');
    await send('/ack');
    const acks = seen.requests.filter((r) => r.url === '/ack');
    expect(acks.length).toBeGreaterThanOrEqual(2);
    expect(acks.every((r) => r.headers.cookie === undefined)).toBe(true);
  });

  it('never follows a redirect', async () => {
    await send('/302');
    expect(seen.redirectFollowed).toBe(0);
  });

  it('cuts an oversized answer at the bound and releases the socket', async () => {
    seen.huge = { written: 0, finished: false, closed: false };
    const sent = await send('/huge', { maxAnswerBytes: 64 * 1024 });
    expect(sent).toMatchObject({ kind: 'oversized', maxAnswerBytes: 64 * 1024 });
    // The connection is closed by the sender, so the receiver stops writing before its 10 MiB.
    await bounded(
      (async () => {
        while (!seen.huge.closed) await new Promise((resolve) => setTimeout(resolve, 10));
      })(),
    );
    expect(seen.huge.finished).toBe(false);
    expect(seen.huge.written).toBeLessThan(10 * MiB);
  });

  it('takes an answer of exactly the bound', async () => {
    const body = response('<transactionId>T-1001</transactionId>');
    const sent = await send('/ack', { maxAnswerBytes: Buffer.byteLength(body) });
    expect(sent).toMatchObject({ kind: 'answer', status: 200, body });
  });

  it('reports a receiver that is not listening as a connection failure', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as { port: number };
    await new Promise((resolve) => closed.close(resolve));
    const sent = await bounded(sendNotification({ url: `http://127.0.0.1:${port}/asn`, body: BODY, timeoutMs: DEADLINE_MS }));
    expect(sent).toMatchObject({ kind: 'connection', message: expect.stringContaining('ECONNREFUSED') });
    expectNoPassword(sent);
  });

  it.each([
    [`http://ossn:${PASSWORD}@127.0.0.1:1/asn`, 'the receiver URL holds credentials: they are never sent in a URL'],
    [`ftp://127.0.0.1/${PASSWORD}`, "the receiver URL's scheme is ftp:, not http or https"],
    [`not a url ${PASSWORD}`, 'the receiver URL is not a URL'],
  ])('sends nothing to %s, and does not repeat it', async (url, message) => {
    const before = seen.requests.length;
    const sent = await bounded(sendNotification({ url, body: BODY, timeoutMs: DEADLINE_MS }));
    expect(sent).toEqual({ kind: 'unsendable', message });
    expectNoPassword(sent);
    expect(seen.requests.length).toBe(before);
  });

  it('rejects with the caller\'s reason when the caller stops, at once', async () => {
    const stop = new AbortController();
    const nevers = () => seen.requests.filter((r) => r.url === '/never').length;
    const before = nevers();
    const sending = send('/never', { signal: stop.signal, timeoutMs: 60_000 });
    // Stopped once the receiver holds the whole request and answers nothing.
    await bounded(
      (async () => {
        while (nevers() === before) await new Promise((resolve) => setTimeout(resolve, 10));
      })(),
    );
    stop.abort(new Error('pusher stopping'));
    const error = await sending.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe('pusher stopping');
    expectNoPassword(error);
  });

  it('rejects at once a signal already aborted, and sends nothing', async () => {
    const before = seen.requests.length;
    await expect(send('/ack', { signal: AbortSignal.abort(new Error('stopped')) })).rejects.toThrow('stopped');
    expect(seen.requests.length).toBe(before);
  });
});
