// The SOAP side of the query service: register `promoStandardsSoap` with its options.
export {
  ORDER_STATUS_PATH,
  SHIPMENT_NOTIFICATION_PATH,
  promoStandardsSoap,
  type PromoStandardsSoapOptions,
} from './plugin.js';
export { SoapClientFault } from '../../../protocol/soap/soap-faults.js';
export type { OperationName } from './operations.js';
