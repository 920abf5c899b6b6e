// The PromoStandards OSS 1.0.0 and OSN 1.0.0 SOAP endpoints, their WSDLs and XSDs, on the SOAP
// plugin skeleton (../../../protocol/soap/soap-plugin.ts). Every failure becomes a SOAP fault.
import type { FastifyRequest } from 'fastify';
import type { OrderLookups } from '../../../../../contracts/lookups.js';
import type { RequestWork } from '../../../http/request-work.js';
import { accessFor, type AccessOptions } from '../../../access/authorize.js';
import { ORDER_STATUS_OPERATIONS, SHIPMENT_NOTIFICATION_OPERATIONS, type Operation, type OperationContext } from './operations.js';
import { sendClientFault, sendFault } from '../../../protocol/soap/soap-http.js';
import { soapPlugin, type SoapPluginOptions, type SoapService } from '../../../protocol/soap/soap-plugin.js';

export const ORDER_STATUS_PATH = '/api/promostandards/order-status';
export const SHIPMENT_NOTIFICATION_PATH = '/api/promostandards/order-shipment-notification';

export interface PromoStandardsSoapOptions extends SoapPluginOptions, AccessOptions {
  lookups: OrderLookups;
  /** What a request's lookup is bound to: cancelled with the request, one of the credential's slots. */
  requestWork?: ((request: FastifyRequest) => RequestWork) | undefined;
}

/** The fault text of a login refused because the password checks are at their bound. */
export const SERVER_BUSY = 'Server busy — retry in a second';

const SERVICES: ReadonlyArray<SoapService<Operation>> = [
  { files: { folder: 'oss-1.0.0', wsdlFile: 'OrderStatusService.wsdl', endpointPath: ORDER_STATUS_PATH, title: 'Order Status 1.0.0' }, operations: ORDER_STATUS_OPERATIONS },
  {
    files: { folder: 'osn-1.0.0', wsdlFile: 'OrderShipmentNotificationService.wsdl', endpointPath: SHIPMENT_NOTIFICATION_PATH, title: 'Order Shipment Notification 1.0.0' },
    operations: SHIPMENT_NOTIFICATION_OPERATIONS,
  },
];

export const promoStandardsSoap = soapPlugin<PromoStandardsSoapOptions, Operation, OperationContext>((options) => ({
  services: SERVICES,
  context: (request: FastifyRequest): OperationContext => ({
    ...accessFor(options, request),
    lookups: options.lookups,
    work: options.requestWork?.(request),
  }),
  refusals: ({ request, reply }) => ({
    // Busy said as busy (an integrator reading "Internal error" would take the supplier for
    // broken): 503 and Retry-After, as the rate limit's 429, with a fault that clients raise with
    // its text (partners.md, Limits).
    busy: () => sendFault(reply.header('Retry-After', '1'), 503, 'soap:Server', SERVER_BUSY),
    loginFailed: () => sendClientFault(request, reply, 'Invalid id or password'),
    forbidden: ({ scope }) => sendClientFault(request, reply, `Credential not permitted for scope: ${scope}`),
  }),
  failed: (error, { request, reply }) => {
    request.log.error({ err: error }, 'SOAP operation failed');
    return sendFault(reply, 500, 'soap:Server', 'Internal error');
  },
}));
