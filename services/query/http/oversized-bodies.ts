import type { FastifyInstance } from 'fastify';
import type { IncomingMessage } from 'node:http';
import { labelRequest } from './request-labels.js';

/** How much of an oversized body is read and thrown away, and for how long, before the connection is dropped. */
export const DRAIN_LIMIT_BYTES = 16 * 1024 * 1024;
export const DRAIN_LIMIT_MS = 5_000;

/**
 * A body over its route's limit is refused, but a client still sending it (curl, Python's
 * http.client) reads the answer only once it has sent everything: answering and closing the
 * connection under it gives it a broken pipe instead of the fault or 413. So the rest of the body
 * is read and thrown away first, up to DRAIN_LIMIT_BYTES and DRAIN_LIMIT_MS, then the answer goes
 * out and the connection is closed.
 */
export function drainOversizedBodies(app: FastifyInstance): void {
  app.addHook('onError', async (request, reply, error) => {
    if ((error as { code?: string }).code !== 'FST_ERR_CTP_BODY_TOO_LARGE') return;
    reply.header('connection', 'close');
    // Refused whether it is answered or dropped past the limits: the drop closes the connection,
    // which the metrics would otherwise count as the partner leaving.
    labelRequest(request, { outcome: 'bad_request' });
    await discard(request.raw, DRAIN_LIMIT_BYTES, DRAIN_LIMIT_MS);
  });
}

/** Reads `body` to its end and throws it away; gives up (dropping the connection) past either limit. */
function discard(body: IncomingMessage, limitBytes: number, limitMs: number): Promise<void> {
  if (body.readableEnded) return Promise.resolve();
  return new Promise((resolve) => {
    let read = 0;
    const giveUp = () => {
      body.destroy();
      resolve();
    };
    const timer = setTimeout(giveUp, limitMs);
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    body.on('data', (chunk: Buffer) => {
      read += chunk.length;
      if (read > limitBytes) {
        clearTimeout(timer);
        giveUp();
      }
    });
    body.once('end', done);
    body.once('close', done);
    body.on('error', () => undefined);
    body.resume();
  });
}
