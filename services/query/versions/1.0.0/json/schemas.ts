// JSON Schemas of the two routes: they validate the query string and describe the answers in the
// OpenAPI description; the bodies are written from content trees of exactly these properties, in
// this order (./answer-body.ts), and schemas.test.ts holds them to what these schemas serialize.
// Bodies exactly as service.md lists them; dates are written as ISO 8601.
import { statusTypes } from '../../../../../contracts/status-types.js';
import { rateLimitHeaders, retryAfterHeader } from '../../../http/openapi.js';
import { MAX_FIELD_LENGTH } from '../../../protocol/field-length.js';

const text = { type: 'string' } as const;
const dateTime = { type: 'string', format: 'date-time' } as const;
/** A request's date-time: read by ../../../request-date-time.ts, which also takes one without a zone (UTC). */
const requestDateTime = { type: 'string' } as const;
export const REQUEST_DATE_TIME = 'An ISO 8601 date-time (xsd:dateTime or RFC 3339); without a time zone it is UTC.';
const object = (properties: Record<string, unknown>, required: string[]) =>
  ({ type: 'object', properties, required, additionalProperties: false }) as const;

const referenceNumber = {
  type: 'string',
  maxLength: MAX_FIELD_LENGTH,
  description: 'Purchase order number (queryType 1) or sales order number (queryType 2); required for those',
} as const;

export interface StatusQuerystring {
  queryType: number;
  referenceNumber?: string;
  statusTimeStamp?: string;
}

export interface ShipmentsQuerystring {
  queryType: number;
  referenceNumber?: string;
  shipmentDateTimeStamp?: string;
}

// Unknown parameters are ignored (no additionalProperties: false); `password` is refused before.
export const statusQuerystring = {
  type: 'object',
  properties: {
    queryType: {
      type: 'integer',
      description: '1 = purchase order number, 2 = sales order number, 3 = changed since statusTimeStamp, 4 = all open orders; other values return an empty list',
    },
    referenceNumber,
    statusTimeStamp: { ...requestDateTime, description: `Required for queryType 3: orders whose status changed after this time. ${REQUEST_DATE_TIME}` },
  },
  required: ['queryType'],
} as const;

export const shipmentsQuerystring = {
  type: 'object',
  properties: {
    queryType: {
      type: 'integer',
      description: '1 = purchase order number, 2 = sales order number, 3 = new since shipmentDateTimeStamp; other values return an empty list',
    },
    referenceNumber,
    shipmentDateTimeStamp: {
      ...requestDateTime,
      description: `Required for queryType 3, which answers packages shipped at or after this time or made visible since (posted late), and locations whose complete flag changed since: send the time of your previous poll. ${REQUEST_DATE_TIME}`,
    },
  },
  required: ['queryType'],
} as const;

const statusDetail = object(
  {
    factoryOrderNumber: text,
    statusID: { type: 'integer', enum: statusTypes.map((t) => t.statusId) },
    statusName: { type: 'string', enum: statusTypes.map((t) => t.statusName) },
    expectedShipDate: dateTime,
    expectedDeliveryDate: dateTime,
    responseRequired: { type: 'boolean' },
    validTimestamp: dateTime,
  },
  ['factoryOrderNumber', 'statusID', 'validTimestamp'],
);

/** One element of `orders` (written by ./answer-body.ts). */
export const orderStatusItem = object({ purchaseOrderNumber: text, details: { type: 'array', items: statusDetail } }, ['purchaseOrderNumber', 'details']);

export const orderStatusBody = object({ orders: { type: 'array', items: orderStatusItem } }, ['orders']);

// No address3/address4 in JSON.
const address = object(
  { address1: text, address2: text, city: text, region: text, postalCode: text, country: text },
  ['address1', 'city', 'region', 'postalCode'],
);

const shipmentPackage = object(
  {
    id: { type: 'integer', description: 'Package number within the location' },
    trackingNumber: text,
    shipmentDate: dateTime,
    carrier: text,
    shipmentMethod: text,
    weight: { type: 'number' },
    weightUOM: text,
  },
  ['trackingNumber'],
);

const location = object(
  {
    id: { type: 'integer', description: 'Location number within the sales order' },
    complete: { type: 'boolean' },
    shipFromAddress: address,
    shipToAddress: address,
    packages: { type: 'array', items: shipmentPackage },
  },
  ['id', 'complete', 'shipFromAddress', 'shipToAddress', 'packages'],
);

const salesOrder = object(
  { salesOrderNumber: text, complete: { type: 'boolean' }, locations: { type: 'array', items: location } },
  ['salesOrderNumber', 'complete', 'locations'],
);

/** One element of `shipments` (see orderStatusItem). */
export const shipmentsItem = object(
  { purchaseOrderNumber: text, complete: { type: 'boolean' }, salesOrders: { type: 'array', items: salesOrder } },
  ['purchaseOrderNumber', 'complete', 'salesOrders'],
);

export const shipmentsBody = object({ shipments: { type: 'array', items: shipmentsItem } }, ['shipments']);

const errorBody = (description: string, headers?: Record<string, unknown>) => ({
  ...object({ error: text }, ['error']),
  description,
  headers: { ...rateLimitHeaders, ...headers },
});

const wwwAuthenticate = { 'WWW-Authenticate': { type: 'string', description: 'Basic realm="ossn"' } };
const retryAfter = retryAfterHeader;

/** The 200 answer of a route: its body schema, described, with the header fields every answer carries. */
export const okResponse = (body: object, description: string) => ({ ...body, description, headers: rateLimitHeaders });

/** queryType values each route answers; other integers answer an empty list (documented, not validated: ../../../http/openapi.ts). */
export const STATUS_QUERY_TYPES = [1, 2, 3, 4] as const;
export const SHIPMENT_QUERY_TYPES = [1, 2, 3] as const;

export const errorResponses = {
  400: errorBody('A query parameter is missing, malformed or too long, or a password was put in the URL; the text names it'),
  401: errorBody('Missing credentials — use HTTP Basic auth (id:password), or Invalid id or password', wwwAuthenticate),
  403: errorBody('Credential not permitted for scope: <scope>'),
  429: errorBody('Rate limit exceeded (per credential, or failed logins per address or id)', retryAfter),
  500: errorBody('Internal error; retry later'),
  503: errorBody('Service busy — retry later: too many logins being checked at once', retryAfter),
};
