// The HTTP side every SOAP endpoint shares (1.0.0 and 2.0.0): request bodies read as XML text
// whatever their declared type, faults sent with their status, and what asks for a WSDL.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { renderFault, type FaultCode } from './envelope.js';
import { decodeRequestBody } from './parse-envelope.js';

export const XML_CONTENT_TYPE = 'text/xml; charset=utf-8';

export function sendFault(reply: FastifyReply, status: number, code: FaultCode, message: string): FastifyReply {
  return reply.code(status).type(XML_CONTENT_TYPE).send(renderFault(code, message));
}

/** Fastify's own request errors (body too large, bad content length, unknown media type...). */
export function isFastifyRequestError(error: FastifyError): boolean {
  const status = error.statusCode ?? 500;
  return typeof error.code === 'string' && error.code.startsWith('FST_') && status >= 400 && status < 500;
}

/** `?wsdl` in any case, with or without a value. */
export function wantsWsdl(query: unknown): boolean {
  return typeof query === 'object' && query !== null && Object.keys(query).some((key) => key.toLowerCase() === 'wsdl');
}

/**
 * In `app`'s context (an encapsulated plugin holding only SOAP routes): whatever the declared type,
 * the body is read as bytes and decoded to text here, to be parsed as XML by the route. SOAP 1.2's
 * application/soap+xml is read too (answers stay 1.1).
 */
export function acceptXmlBodies(app: FastifyInstance, bodyLimit: number): void {
  app.removeAllContentTypeParsers();
  const parseXmlBody = (request: FastifyRequest, body: Buffer, done: (err: Error | null, body?: string) => void): void => {
    try {
      done(null, decodeRequestBody(body, request.headers['content-type']));
    } catch (error) {
      done(error as Error);
    }
  };
  app.addContentTypeParser(['text/xml', 'application/soap+xml', 'application/xml'], { parseAs: 'buffer', bodyLimit }, parseXmlBody);
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit }, parseXmlBody);
}
