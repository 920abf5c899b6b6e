// The one SOAP 1.1 plugin skeleton every version registers (encapsulated): a version gives its
// services (official files and operations, chosen by the local name of the Body's first
// element), each request's context, and how it answers the access step's refusals and any other
// failure; the skeleton reads the body, dispatches, labels the request for the metrics, writes
// the envelope, serves the WSDLs and XSDs and maps every failure in one error handler. The faults
// every version sends alike (malformed requests, unknown operations, the rate limit) are here.
import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { answerRefusal, type RefusalAnswers } from '../../access/refusals.js';
import { labelRequest } from '../../http/request-labels.js';
import { sendAsRead } from '../../http/sent-as-read.js';
import { renderEnvelope, streamedEnvelope, type BodyContent } from './envelope.js';
import { childText, operationElement, type XmlElement } from './parse-envelope.js';
import { MALFORMED_REQUEST, SoapClientFault } from './soap-faults.js';
import { acceptXmlBodies, DEFAULT_BODY_LIMIT, isFastifyRequestError, sendClientFault, sendFault, serveDocuments, XML_CONTENT_TYPE } from './soap-http.js';
import { loadServedDocuments, type ServiceFiles } from './wsdl.js';

export interface SoapOperation<C> {
  /** As the request metrics name it. */
  name: string;
  /** What writes the answer's Body content. */
  run(request: XmlElement, context: C): Promise<BodyContent>;
}

export interface SoapService<O> {
  files: ServiceFiles;
  /** Request element local name -> operation. */
  operations: ReadonlyMap<string, O>;
}

/** What a version's answer to a failure is given: the operation asked for, once known. */
export interface Failure<O> {
  request: FastifyRequest;
  reply: FastifyReply;
  operation: O | undefined;
}

export interface SoapVersion<O extends SoapOperation<C>, C> {
  services: ReadonlyArray<SoapService<O>>;
  /** One request's context, given to its operation. */
  context(request: FastifyRequest): C;
  /** The access step's refusals but the rate limit (a fault in every version: back-off is HTTP's job). */
  refusals(failure: Failure<O>): Omit<RefusalAnswers<FastifyReply>, 'rateLimited'>;
  /** Any other failure. */
  failed(error: FastifyError, failure: Failure<O>): FastifyReply;
}

export interface SoapPluginOptions {
  /** Public base URL of the deployment; the WSDLs' soap:address is this plus the endpoint path. */
  publicBaseUrl: string;
  /** Request body limit in bytes; DEFAULT_BODY_LIMIT when absent. */
  bodyLimit?: number | undefined;
}

/** A version's plugin: `version` is built from the options it is registered with. */
export function soapPlugin<T extends SoapPluginOptions, O extends SoapOperation<C>, C>(version: (options: T) => SoapVersion<O, C>): FastifyPluginAsync<T> {
  return async (app, options) => {
    const { services, context, refusals, failed } = version(options);
    const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
    const served = await Promise.all(services.map((s) => loadServedDocuments(s.files, options.publicBaseUrl)));
    /** The operation a request asked for, once known: some versions answer refusals inside its response element. */
    const answering = new WeakMap<FastifyRequest, O>();

    app.setErrorHandler((error: FastifyError, request, reply) => {
      const failure = { request, reply, operation: answering.get(request) };
      if (request.raw.aborted || error.code === 'ECONNRESET') {
        // The client went away mid-body: nobody to answer and nothing of ours failed. Info, so that
        // anyone opening and dropping connections cannot flood the error log.
        request.log.info({ code: error.code }, 'SOAP request aborted by the client');
        return sendFault(reply, 400, 'soap:Client', MALFORMED_REQUEST);
      }
      const refused = answerRefusal(error, request, {
        ...refusals(failure),
        rateLimited: ({ retryAfterSeconds }) => {
          reply.header('Retry-After', String(Math.max(1, Math.ceil(retryAfterSeconds))));
          return sendFault(reply, 429, 'soap:Server', 'Rate limit exceeded — retry later');
        },
      });
      if (refused) return refused;
      if (error instanceof SoapClientFault) return sendClientFault(request, reply, error.message);
      if (isFastifyRequestError(error)) {
        request.log.info({ fault: MALFORMED_REQUEST, code: error.code }, 'SOAP request refused');
        return sendFault(reply, 500, 'soap:Client', MALFORMED_REQUEST);
      }
      return failed(error, failure);
    });

    acceptXmlBodies(app, bodyLimit);

    services.forEach(({ files, operations }, index) => {
      const documents = served[index];
      if (!documents) throw new Error(`${files.folder}: documents not loaded`);
      app.post(files.endpointPath, { bodyLimit, config: { metrics: { interface: 'soap' } } }, async (request, reply) => {
        if (typeof request.body !== 'string') throw new SoapClientFault(MALFORMED_REQUEST);
        const element = operationElement(request.body);
        const operation = operations.get(element.name);
        labelRequest(request, { operation: operation?.name ?? 'unsupported', queryType: childText(element, 'queryType') });
        if (!operation) throw new SoapClientFault(`Unsupported operation: ${element.name}`);
        answering.set(request, operation);
        const content = await operation.run(element, context(request));
        if (typeof content !== 'function') return sendAsRead(reply.code(200), XML_CONTENT_TYPE, streamedEnvelope(content.streamed));
        return reply.code(200).type(XML_CONTENT_TYPE).send(renderEnvelope(content));
      });
      serveDocuments(app, files, documents);
    });
  };
}
