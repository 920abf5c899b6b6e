// The HTTP side every SOAP endpoint shares (./soap-plugin.ts): request bodies read as XML text
// whatever their declared type, faults, and the WSDL and XSD routes.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { renderFault, type FaultCode } from './envelope.js';
import { decodeRequestBody, refuseDisproportionate } from './parse-envelope.js';
import type { ServedDocuments, ServiceFiles } from './wsdl.js';

export const XML_CONTENT_TYPE = 'text/xml; charset=utf-8';

/** The largest legitimate request is under 2 KiB (fields of at most 64 characters): room for generous clients, none for work. */
export const DEFAULT_BODY_LIMIT = 8 * 1024;

export function sendFault(reply: FastifyReply, status: number, code: FaultCode, message: string): FastifyReply {
  return reply.code(status).type(XML_CONTENT_TYPE).send(renderFault(code, message));
}

/** Fastify's own request errors (body too large, bad content length, unknown media type...). */
export function isFastifyRequestError(error: FastifyError): boolean {
  const status = error.statusCode ?? 500;
  return typeof error.code === 'string' && error.code.startsWith('FST_') && status >= 400 && status < 500;
}

/** A soap:Client fault (HTTP 500, as the fault table says), logged at info: the client's mistake, not ours. */
export function sendClientFault(request: FastifyRequest, reply: FastifyReply, message: string): FastifyReply {
  request.log.info({ fault: message }, 'SOAP client fault');
  return sendFault(reply, 500, 'soap:Client', message);
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
      const text = decodeRequestBody(body, request.headers['content-type']);
      // Before anyone is authenticated: no body makes the parser work out of proportion.
      refuseDisproportionate(text);
      done(null, text);
    } catch (error) {
      done(error as Error);
    }
  };
  app.addContentTypeParser(['text/xml', 'application/soap+xml', 'application/xml'], { parseAs: 'buffer', bodyLimit }, parseXmlBody);
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit }, parseXmlBody);
}

/**
 * What a GET of the endpoint itself answers (a person who opened its URL in a browser): what it is,
 * how to call it, and the link to its WSDL. Nothing of the request is echoed.
 */
export function endpointPage({ title, endpointPath }: Pick<ServiceFiles, 'title' | 'endpointPath'>): string {
  const wsdl = `${endpointPath}?wsdl`;
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>PromoStandards ${title} (SOAP)</title></head>
<body>
<h1>PromoStandards ${title}</h1>
<p>This is a SOAP 1.1 endpoint: send each request as an HTTP POST of a SOAP envelope (Content-Type: text/xml) to this URL.</p>
<p>WSDL, for a SOAP client: <a href="${wsdl}">${wsdl}</a></p>
</body></html>
`;
}

/**
 * The GET routes of an endpoint: `<path>?wsdl` the WSDL, `<path>` alone a short page naming it and
 * linking its WSDL, `<path>/<file>` each XSD the WSDL names; anything else not found. (2.0.0's
 * paths lie under 1.0.0's: Fastify prefers their static path to 1.0.0's `<path>/:file`.)
 */
export function serveDocuments(app: FastifyInstance, files: ServiceFiles, documents: ServedDocuments): void {
  const path = files.endpointPath;
  const page = endpointPage(files);
  app.get(path, async (request, reply) => {
    if (!wantsWsdl(request.query)) return reply.type('text/html; charset=utf-8').send(page);
    return reply.type(XML_CONTENT_TYPE).send(documents.wsdl);
  });

  app.get<{ Params: { file: string } }>(`${path}/:file`, async (request, reply) => {
    const schema = documents.schemas.get(request.params.file);
    if (schema === undefined) return reply.callNotFound();
    return reply.type(XML_CONTENT_TYPE).send(schema);
  });
}
