// Fastify plugin (encapsulated) serving the PromoStandards OSS 2.0.0 and OSN 2.0.0 SOAP endpoints
// beside the 1.0.0 ones, their WSDLs and XSDs (oss-osn-2.0.0.md §1). SOAP as 1.0.0: 1.1,
// document/literal, dispatch on the Body's first element. Refusals and unexpected failures are
// answered in-band (HTTP 200, a ServiceMessage in the response element); malformed requests,
// unknown operations and the rate limit stay SOAP faults. All mapped in one error handler.
import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { PasswordChecksBusyError } from '../../../../domain/credentials/check-slots.js';
import { labelRequest } from '../../../http/request-labels.js';
import { renderEnvelope } from '../../../protocol/soap/envelope.js';
import { childText, operationElement } from '../../../protocol/soap/parse-envelope.js';
import { MALFORMED_REQUEST, SoapClientFault } from '../../../protocol/soap/soap-faults.js';
import { acceptXmlBodies, DEFAULT_BODY_LIMIT, sendCommonFault, sendFault, serveDocuments, XML_CONTENT_TYPE } from '../../../protocol/soap/soap-http.js';
import { loadServedDocuments, type ServiceFiles } from '../../../protocol/soap/wsdl.js';
import { answerContext, type V2ServiceOptions } from '../answers.js';
import { messages, ServiceMessageError } from '../service-messages.js';
import { ORDER_STATUS_V2_OPERATIONS, SHIPMENT_NOTIFICATION_V2_OPERATIONS, type SoapV2Context, type SoapV2Operation, type SoapV2Operations } from './operations.js';

// Under 1.0.0's paths, with the version as their last segment (oss-osn-2.0.0.md §1).
export const ORDER_STATUS_V2_PATH = '/api/promostandards/order-status/2.0.0';
export const SHIPMENT_NOTIFICATION_V2_PATH = '/api/promostandards/order-shipment-notification/2.0.0';

export interface PromoStandardsSoapV2Options extends V2ServiceOptions {
  /** Public base URL of the deployment; the WSDLs' soap:address is this plus the endpoint path. */
  publicBaseUrl: string;
  /** Request body limit in bytes; default 64 KiB, as 1.0.0. */
  bodyLimit?: number;
}

const SERVICES: ReadonlyArray<{ files: ServiceFiles; operations: SoapV2Operations }> = [
  { files: { folder: 'oss-2.0.0', wsdlFile: 'OrderStatusServiceV2.wsdl', endpointPath: ORDER_STATUS_V2_PATH, title: 'Order Status 2.0.0' }, operations: ORDER_STATUS_V2_OPERATIONS },
  {
    files: { folder: 'osn-2.0.0', wsdlFile: 'OrderShipmentNotificationService.wsdl', endpointPath: SHIPMENT_NOTIFICATION_V2_PATH, title: 'Order Shipment Notification 2.0.0' },
    operations: SHIPMENT_NOTIFICATION_V2_OPERATIONS,
  },
];

/** The operation a request asked for, once known: its response element carries refusals. */
const answering = new WeakMap<FastifyRequest, SoapV2Operation>();

function sendAnswer(reply: FastifyReply, payload: Parameters<typeof renderEnvelope>[0]): FastifyReply {
  return reply.code(200).type(XML_CONTENT_TYPE).send(renderEnvelope(payload));
}

function handleError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const common = sendCommonFault(error, request, reply);
  if (common) return common;
  const operation = answering.get(request);
  if (!operation) {
    request.log.error({ err: error }, 'SOAP 2.0.0 request failed');
    return sendFault(reply, 500, 'soap:Server', 'Internal error');
  }
  if (error instanceof ServiceMessageError) return sendAnswer(reply, operation.messagesOnly([error.serviceMessage]));
  if (error instanceof PasswordChecksBusyError) {
    // Debug only: a flood would otherwise write a warning per refused login.
    request.log.debug('password checks at their bound: login refused as busy');
    reply.header('Retry-After', '1');
    return sendAnswer(reply, operation.messagesOnly([messages.busy()]));
  }
  request.log.error({ err: error }, 'SOAP 2.0.0 operation failed');
  return sendAnswer(reply, operation.messagesOnly([messages.generalError()]));
}

export const promoStandardsSoapV2: FastifyPluginAsync<PromoStandardsSoapV2Options> = async (app, options) => {
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const served = await Promise.all(SERVICES.map((s) => loadServedDocuments(s.files, options.publicBaseUrl)));
  const degraded = options.degraded ?? (() => undefined);

  app.setErrorHandler(handleError);
  acceptXmlBodies(app, bodyLimit);

  SERVICES.forEach(({ files, operations }, index) => {
    const documents = served[index];
    if (!documents) throw new Error(`${files.folder}: documents not loaded`);
    const path = files.endpointPath;

    app.post(path, { bodyLimit, config: { metrics: { interface: 'soap' } } }, async (request, reply) => {
      if (typeof request.body !== 'string') throw new SoapClientFault(MALFORMED_REQUEST);
      const element = operationElement(request.body);
      const operation = operations.get(element.name);
      labelRequest(request, { operation: operation?.name ?? 'unsupported', queryType: childText(element, 'queryType') });
      if (!operation) throw new SoapClientFault(`Unsupported operation: ${element.name}`);
      answering.set(request, operation);
      const context: SoapV2Context = { ...answerContext(options, request), degraded };
      return sendAnswer(reply, await operation.run(element, context));
    });

    serveDocuments(app, files, documents);
  });
};
