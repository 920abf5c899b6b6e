// The JSON side of the query service: register `partnerJsonApi` with its options.
export { OPENAPI_PATH, ORDER_STATUS_JSON_PATH, PARTNER_API_PREFIX, SHIPMENTS_JSON_PATH, partnerJsonApi, type PartnerJsonOptions } from './plugin.js';
