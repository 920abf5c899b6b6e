// Answers sent as they are read (partners.md, "Large answers"), SOAP and JSON alike.
import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { labelRequest } from './request-labels.js';

/**
 * Sends `chunks` as the 200 body (chunked), as they come. A failure before the first chunk is
 * answered by the route's error handler as any other (Fastify hands it on while no header is
 * sent); one after it aborts the transfer (Fastify destroys the response), so that the client sees
 * the transfer fail, never a short answer, and labels the request's outcome an error: the request
 * metrics count it when its connection closes (request-metrics.ts).
 */
export function sendAsRead(reply: FastifyReply, contentType: string, chunks: AsyncIterable<Buffer>): FastifyReply {
  const body = Readable.from(chunks);
  body.once('error', () => labelRequest(reply.request, { outcome: 'error' }));
  return reply.type(contentType).send(body);
}
