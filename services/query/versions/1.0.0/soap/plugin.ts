// Fastify plugin (encapsulated) serving the PromoStandards OSS 1.0.0 and OSN 1.0.0 SOAP endpoints,
// their WSDLs and XSDs. Every failure of these routes becomes a SOAP fault in one error handler.
import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { OrderLookups } from '../../../../../contracts/lookups.js';
import type { RequestWork } from '../../../http/request-work.js';
import type { Authenticator, LoginGuard } from '../../../../domain/credentials/credential.js';
import { renderEnvelope } from '../../../protocol/soap/envelope.js';
import { PasswordChecksBusyError } from '../../../../domain/credentials/check-slots.js';
import { MALFORMED_REQUEST, SoapClientFault } from '../../../protocol/soap/soap-faults.js';
import {
  ORDER_STATUS_OPERATIONS,
  runOperation,
  SHIPMENT_NOTIFICATION_OPERATIONS,
  type BeforeOperation,
  type OperationContext,
  type OperationTable,
} from './operations.js';
import { childText, operationElement } from '../../../protocol/soap/parse-envelope.js';
import { acceptXmlBodies, DEFAULT_BODY_LIMIT, sendCommonFault, sendFault, serveDocuments, XML_CONTENT_TYPE } from '../../../protocol/soap/soap-http.js';
import { labelRequest } from '../../../http/request-labels.js';
import { loadServedDocuments, type ServedDocuments, type ServiceFiles } from '../../../protocol/soap/wsdl.js';

export const ORDER_STATUS_PATH = '/api/promostandards/order-status';
export const SHIPMENT_NOTIFICATION_PATH = '/api/promostandards/order-shipment-notification';

export interface PromoStandardsSoapOptions {
  /** Public base URL of the deployment; the WSDLs' soap:address is this plus the endpoint path. */
  publicBaseUrl: string;
  lookups: OrderLookups;
  authenticator: Authenticator;
  /** Hook for rate limiting, per request: runs after authentication; throw RateLimitedError to refuse. */
  beforeOperation?: ((request: FastifyRequest) => BeforeOperation) | undefined;
  /** Runs just before a password is checked against the store; throw RateLimitedError to refuse. */
  beforePasswordCheck?: ((request: FastifyRequest) => LoginGuard) | undefined;
  /** What a request's lookup is bound to: cancelled with the request, one of the credential's slots. */
  requestWork?: ((request: FastifyRequest) => RequestWork) | undefined;
  /** Request body limit in bytes; default 64 KiB. */
  bodyLimit?: number;
}

/** The fault text of a login refused because the password checks are at their bound. */
export const SERVER_BUSY = 'Server busy — retry in a second';

const SERVICES: ReadonlyArray<{ files: ServiceFiles; operations: OperationTable }> = [
  { files: { folder: 'oss-1.0.0', wsdlFile: 'OrderStatusService.wsdl', endpointPath: ORDER_STATUS_PATH, title: 'Order Status 1.0.0' }, operations: ORDER_STATUS_OPERATIONS },
  {
    files: { folder: 'osn-1.0.0', wsdlFile: 'OrderShipmentNotificationService.wsdl', endpointPath: SHIPMENT_NOTIFICATION_PATH, title: 'Order Shipment Notification 1.0.0' },
    operations: SHIPMENT_NOTIFICATION_OPERATIONS,
  },
];

function handleError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const common = sendCommonFault(error, request, reply);
  if (common) return common;
  if (error instanceof PasswordChecksBusyError) {
    // Busy said as busy (an integrator reading "Internal error" would take the supplier for
    // broken): 503 and Retry-After, as the rate limit's 429, with a fault that clients raise with
    // its text (partners.md, Limits). Debug only: a flood would otherwise write a warning per refused
    // login, which is what the bound is there to absorb.
    request.log.debug('password checks at their bound: login refused as busy');
    reply.header('Retry-After', '1');
    return sendFault(reply, 503, 'soap:Server', SERVER_BUSY);
  }
  request.log.error({ err: error }, 'SOAP operation failed');
  return sendFault(reply, 500, 'soap:Server', 'Internal error');
}

export const promoStandardsSoap: FastifyPluginAsync<PromoStandardsSoapOptions> = async (app, options) => {
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const context: OperationContext = { lookups: options.lookups, authenticator: options.authenticator };
  const served: ServedDocuments[] = await Promise.all(SERVICES.map((s) => loadServedDocuments(s.files, options.publicBaseUrl)));

  app.setErrorHandler(handleError);

  acceptXmlBodies(app, bodyLimit);

  SERVICES.forEach(({ files, operations }, index) => {
    const documents = served[index] as ServedDocuments;
    const path = files.endpointPath;

    app.post(path, { bodyLimit, config: { metrics: { interface: 'soap' } } }, async (request, reply) => {
      if (typeof request.body !== 'string') throw new SoapClientFault(MALFORMED_REQUEST);
      const element = operationElement(request.body);
      labelRequest(request, { operation: operations.get(element.name)?.name ?? 'unsupported', queryType: childText(element, 'queryType') });
      const { beforePasswordCheck, beforeOperation, requestWork } = options;
      const payload = await runOperation(operations, element, {
        ...context,
        beforeOperation: beforeOperation?.(request),
        beforePasswordCheck: beforePasswordCheck?.(request),
        work: requestWork?.(request),
      });
      return reply.type(XML_CONTENT_TYPE).send(renderEnvelope(payload));
    });

    serveDocuments(app, files, documents);
  });
};
