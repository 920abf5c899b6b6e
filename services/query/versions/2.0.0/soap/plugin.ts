// The PromoStandards OSS 2.0.0 and OSN 2.0.0 SOAP endpoints beside the 1.0.0 ones, their WSDLs and
// XSDs (oss-osn-2.0.0.md §1), on the SOAP plugin skeleton (../../../protocol/soap/soap-plugin.ts).
// SOAP as 1.0.0: 1.1, document/literal, dispatch on the Body's first element. Refusals and
// unexpected failures are answered in-band (HTTP 200, a ServiceMessage in the response element);
// malformed requests, unknown operations and the rate limit stay SOAP faults.
import { soapPlugin, type SoapPluginOptions, type SoapService } from '../../../protocol/soap/soap-plugin.js';
import { inBandFailures } from '../../../v2-core/soap-in-band.js';
import { answerContext, type V2ServiceOptions } from '../../../v2-core/answers.js';
import { ORDER_STATUS_V2_OPERATIONS, SHIPMENT_NOTIFICATION_V2_OPERATIONS, type SoapV2Context, type SoapV2Operation } from './operations.js';

// Under 1.0.0's paths, with the version as their last segment (oss-osn-2.0.0.md §1).
export const ORDER_STATUS_V2_PATH = '/api/promostandards/order-status/2.0.0';
export const SHIPMENT_NOTIFICATION_V2_PATH = '/api/promostandards/order-shipment-notification/2.0.0';

export type PromoStandardsSoapV2Options = V2ServiceOptions & SoapPluginOptions;

const SERVICES: ReadonlyArray<SoapService<SoapV2Operation>> = [
  { files: { folder: 'oss-2.0.0', wsdlFile: 'OrderStatusServiceV2.wsdl', endpointPath: ORDER_STATUS_V2_PATH, title: 'Order Status 2.0.0' }, operations: ORDER_STATUS_V2_OPERATIONS },
  {
    files: { folder: 'osn-2.0.0', wsdlFile: 'OrderShipmentNotificationService.wsdl', endpointPath: SHIPMENT_NOTIFICATION_V2_PATH, title: 'Order Shipment Notification 2.0.0' },
    operations: SHIPMENT_NOTIFICATION_V2_OPERATIONS,
  },
];

export const promoStandardsSoapV2 = soapPlugin<PromoStandardsSoapV2Options, SoapV2Operation, SoapV2Context>((options) => {
  const degraded = options.degraded ?? (() => undefined);
  return {
    services: SERVICES,
    context: (request) => ({ ...answerContext(options, request), degraded }),
    ...inBandFailures<SoapV2Operation, SoapV2Context>('SOAP 2.0.0'),
  };
});
