// The PromoStandards OSN 2.1.0 SOAP endpoint beside 1.0.0's and 2.0.0's, its WSDL and XSDs
// (docs/design/osn-2.1.0.md §1), on the SOAP plugin skeleton and 2.0.0's in-band answers to
// refusals and failures: the same credentials, scope (osn), limits and lookups as 2.0.0.
import { soapPlugin, type SoapPluginOptions } from '../../../protocol/soap/soap-plugin.js';
import { startOfDayIn } from '../../../request-date-time.js';
import { answerContext, type V2ServiceOptions } from '../../../v2-core/answers.js';
import { inBandFailures } from '../../../v2-core/soap-in-band.js';
import { SHIPMENT_NOTIFICATION_V21_OPERATIONS, type SoapV21Context, type SoapV21Operation } from './operations.js';

// Under 1.0.0's path, with the version as its last segment, as 2.0.0's.
export const SHIPMENT_NOTIFICATION_V21_PATH = '/api/promostandards/order-shipment-notification/2.1.0';

export interface PromoStandardsSoapV21Options extends V2ServiceOptions, SoapPluginOptions {
  /** The supplier's time zone (IANA), in which a bare shipmentDateTimestamp date starts; UTC when absent. */
  supplierTimeZone?: string | undefined;
  /** Whether a credential has a push subscription; none has when absent. */
  pushSubscribed?: ((credentialId: string) => Promise<boolean>) | undefined;
}

export const promoStandardsSoapV21 = soapPlugin<PromoStandardsSoapV21Options, SoapV21Operation, SoapV21Context>((options) => {
  const degraded = options.degraded ?? (() => undefined);
  const timeZone = options.supplierTimeZone ?? 'UTC';
  const pushSubscribed = options.pushSubscribed ?? (async () => false);
  return {
    services: [
      {
        files: { folder: 'osn-2.1.0', wsdlFile: 'OrderShipmentNotificationService.wsdl', endpointPath: SHIPMENT_NOTIFICATION_V21_PATH, title: 'Order Shipment Notification 2.1.0' },
        operations: SHIPMENT_NOTIFICATION_V21_OPERATIONS,
      },
    ],
    context: (request) => ({ ...answerContext(options, request), degraded, startOfDay: (date) => startOfDayIn(timeZone, date), pushSubscribed }),
    ...inBandFailures<SoapV21Operation, SoapV21Context>('SOAP 2.1.0'),
  };
});
