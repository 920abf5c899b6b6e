// JSON Schemas of the JSON v2 twins' routes (oss-osn-2.0.0.md §1, §10.5). The parameters are the
// SOAP request's fields (no wsVersion: the path carries it), all read as text and checked as the
// SOAP side checks them (../read-request.ts), so the twins refuse with the same codes; the schema
// refuses only a parameter given more than once, and the values those checks accept are listed as
// enums in the OpenAPI description only (../../../http/openapi.ts). 200 bodies are written by
// ./answer-body.ts; their schemas here describe them (the OpenAPI description), error bodies are
// serialized with theirs.
import { contactTypes, issueCategories, issueDetailTypes, issueStatuses, orderStatusQueryTypes, preProductionProofs, quantityUoms, statusWords } from '../../../../../contracts/v2-vocabulary.js';
import { rateLimitHeaders, retryAfterHeader } from '../../../http/openapi.js';
import { DIM_UOMS, shipmentDestinationTypesV2, WEIGHT_UOMS } from '../../../v2-core/osn/notification-content.js';
import { severities } from '../../../v2-core/service-messages.js';

const text = (description: string) => ({ type: 'string', description }) as const;
const str = { type: 'string' } as const;
const int = { type: 'integer' } as const;
const num = { type: 'number' } as const;
const bool = { type: 'boolean' } as const;
const dateTime = { type: 'string', format: 'date-time' } as const;
const oneOf = (values: readonly string[]) => ({ type: 'string', enum: [...values] }) as const;
const array = (items: object) => ({ type: 'array', minItems: 1, items }) as const;
const object = (properties: Record<string, unknown>, required: string[] = []) => ({ type: 'object', properties, required, additionalProperties: false }) as const;

const requestDateTime = 'an xsd:dateTime or RFC 3339 date-time; without a time zone it is UTC';

export const statusQuerystring = {
  type: 'object',
  properties: {
    queryType: text('poSearch, soSearch, lastUpdate, allOpen or allOpenIssues (transactionId: 125; another value: 300)'),
    referenceNumber: text('Purchase order number (poSearch) or sales order number (soSearch); required for those'),
    statusTimeStamp: text(`Required for lastUpdate: sales orders changed after this time, ${requestDateTime}`),
    returnIssueDetailType: text('noIssues (default; openIssues for allOpenIssues), openIssues or allIssues'),
    returnProductDetail: text('true or false (default): the product lines of each sales order'),
  },
} as const;

export const shipmentsQuerystring = {
  type: 'object',
  properties: {
    queryType: text('1 = purchase order number, 2 = sales order number, 3 = shipped since shipmentDateTimestamp'),
    referenceNumber: text('Required for queryType 1 and 2'),
    shipmentDateTimestamp: text(`Required for queryType 3: ${requestDateTime}, or a day (its start in UTC)`),
  },
} as const;

export const issuesQuerystring = {
  type: 'object',
  properties: { issueId: text('The issue asked for') },
} as const;

/** The values each route's checks accept, as its OpenAPI description lists them. */
export const STATUS_ENUMS = { queryType: orderStatusQueryTypes, returnIssueDetailType: issueDetailTypes, returnProductDetail: ['true', 'false', '1', '0'] } as const;
export const SHIPMENT_ENUMS = { queryType: ['1', '2', '3'] } as const;

export type V2Querystring = Record<string, string | undefined>;

const serviceMessage = object({ code: int, description: str, severity: oneOf(severities) }, ['code', 'description', 'severity']);
const serviceMessages = { type: 'array', items: serviceMessage } as const;

const messagesBody = (description: string) => ({
  description,
  type: 'object',
  properties: { ServiceMessageArray: serviceMessages },
  required: ['ServiceMessageArray'],
  headers: rateLimitHeaders,
});

export const errorResponses = {
  400: messagesBody('120 field(s) required, 125 not supported, 300 queryType not found, 302 invalid date'),
  401: { ...messagesBody('110 credentials required, 105 credentials failed'), headers: { ...rateLimitHeaders, 'WWW-Authenticate': { type: 'string' } } },
  403: messagesBody('104 unauthorized for this service'),
  404: messagesBody('301 referenceNumber or issueId not found'),
  429: { ...messagesBody('999 rate limit exceeded (per credential, or failed logins per address or id)'), headers: { ...rateLimitHeaders, ...retryAfterHeader } },
  500: messagesBody('999 general error'),
  503: { ...messagesBody('999 server busy: too many logins being checked at once; retry in a second'), headers: { ...rateLimitHeaders, ...retryAfterHeader } },
};

// The 200 bodies, as ../oss/order-status-tree.ts and ../osn/notification-content.ts write them:
// each XArray of the XSDs an array of at least one item, absent when it would be empty.
const quantity = object({ value: num, uom: oneOf(quantityUoms) }, ['value', 'uom']);

const contact = object(
  {
    accountName: str,
    accountNumber: str,
    contactType: oneOf(contactTypes),
    ContactDetails: object({
      attentionTo: str,
      companyName: str,
      address1: str,
      address2: str,
      address3: str,
      city: str,
      region: str,
      postalCode: str,
      country: str,
      email: str,
      phone: str,
      comments: str,
    }),
  },
  ['contactType', 'ContactDetails'],
);

const product = object(
  {
    productId: str,
    partId: str,
    salesOrderLineNumber: str,
    purchaseOrderLineNumber: str,
    QuantityOrdered: quantity,
    QuantityShipped: quantity,
    issueCategory: oneOf(issueCategories),
    status: oneOf(statusWords),
  },
  ['productId', 'salesOrderLineNumber', 'QuantityOrdered', 'status'],
);

const issue = object(
  {
    issueId: str,
    issueStatus: oneOf(issueStatuses),
    issueCategory: oneOf(issueCategories),
    issueName: str,
    urgentResponseRequired: bool,
    issueDescription: str,
    responseRequiredBy: dateTime,
    issueResolutionURL: str,
    productId: str,
    partId: str,
  },
  ['issueId', 'issueStatus', 'issueCategory', 'urgentResponseRequired'],
);

const orderStatusDetail = object(
  {
    salesOrderNumber: str,
    status: oneOf(statusWords),
    issueCategory: oneOf(issueCategories),
    expectedShipDate: { type: 'string', format: 'date' },
    expectedDeliveryDate: { type: 'string', format: 'date' },
    additionalExplanation: str,
    qualityProofURL: str,
    OrderContactArray: array(contact),
    ProductArray: array(product),
    IssueArray: array(issue),
    validTimestamp: dateTime,
  },
  ['salesOrderNumber', 'status', 'validTimestamp'],
);

const orderStatus = object({ purchaseOrderNumber: str, OrderStatusDetailArray: array(orderStatusDetail) }, ['purchaseOrderNumber', 'OrderStatusDetailArray']);

const address = object(
  { attentionTo: str, companyName: str, address1: str, address2: str, address3: str, city: str, region: str, postalCode: str, country: str, email: str, phone: str },
  ['address1', 'city', 'region', 'postalCode'],
);

const item = object(
  { supplierProductId: str, supplierPartId: str, distributorProductId: str, distributorPartId: str, purchaseOrderLineNumber: int, Quantity: quantity },
  ['supplierProductId', 'Quantity'],
);

const shipmentPackage = object(
  {
    id: int,
    trackingNumber: str,
    shipmentDate: dateTime,
    Dimension: object({
      DimensionSize: object({ dimUOM: oneOf(DIM_UOMS), length: num, width: num, height: num }, ['dimUOM']),
      DimensionWeight: object({ weightUOM: oneOf(WEIGHT_UOMS), weight: num }, ['weightUOM', 'weight']),
    }),
    FreightDetails: object({ carrier: str, service: str }, ['carrier', 'service']),
    shippingAccount: str,
    shipmentTerms: str,
    ItemArray: array(item),
    preProductionProof: oneOf(preProductionProofs),
    shipReferences: { ...array(str), maxItems: 4, description: 'What is on the label (1 to 4); absent when none.' },
  },
  ['shipmentDate', 'preProductionProof'],
);

const shipment = object(
  {
    destinationShippedInFull: bool,
    customerPickup: bool,
    shipFromAddress: address,
    shipToAddress: address,
    shipmentDestinationType: oneOf(shipmentDestinationTypesV2),
    PackageArray: array(shipmentPackage),
  },
  ['destinationShippedInFull', 'customerPickup', 'shipFromAddress', 'shipToAddress', 'PackageArray'],
);

const salesOrder = object({ salesOrderNumber: str, salesOrderShippedInFull: bool, ShipmentArray: array(shipment) }, ['salesOrderNumber', 'salesOrderShippedInFull', 'ShipmentArray']);

const notification = object(
  { purchaseOrderNumber: str, purchaseOrderShippedInFull: bool, SalesOrderArray: array(salesOrder) },
  ['purchaseOrderNumber', 'purchaseOrderShippedInFull', 'SalesOrderArray'],
);

const answerFull = 'ServiceMessageArray holds the Warning 200 "Answer full" when more purchase orders matched than the 5,000 an answer holds.';
const ok = (description: string, properties: Record<string, unknown>) => ({ ...object(properties), description, headers: rateLimitHeaders });

export const orderStatusOk = ok(`The orders (no OrderStatusArray: none matched). ${answerFull}`, { OrderStatusArray: array(orderStatus), ServiceMessageArray: serviceMessages });
export const issuesOk = ok('The issue', { IssueArray: array(issue) });
export const shipmentsOk = ok(`The shipments (no OrderShipmentNotificationArray: none matched). ${answerFull}`, {
  OrderShipmentNotificationArray: array(notification),
  ServiceMessageArray: serviceMessages,
});
