// JSON Schemas of the JSON v2 twins' routes (oss-osn-2.0.0.md §1, §10.5). The parameters are the
// SOAP request's fields (no wsVersion: the path carries it), all read as text and checked as the
// SOAP side checks them (../read-request.ts), so the twins refuse with the same codes; the schema
// refuses only a parameter given more than once. 200 bodies are written by ./answer-body.ts.

const text = (description: string) => ({ type: 'string', description }) as const;

export const statusQuerystring = {
  type: 'object',
  properties: {
    queryType: text('poSearch, soSearch, lastUpdate, allOpen or allOpenIssues (transactionId: 125)'),
    referenceNumber: text('Purchase order number (poSearch) or sales order number (soSearch); required for those'),
    statusTimeStamp: text('Required for lastUpdate: sales orders changed after this xsd:dateTime (no zone: UTC)'),
    returnIssueDetailType: text('noIssues (default; openIssues for allOpenIssues), openIssues or allIssues'),
    returnProductDetail: text('true or false (default): the product lines of each sales order'),
  },
} as const;

export const shipmentsQuerystring = {
  type: 'object',
  properties: {
    queryType: text('1 = purchase order number, 2 = sales order number, 3 = shipped since shipmentDateTimestamp'),
    referenceNumber: text('Required for queryType 1 and 2'),
    shipmentDateTimestamp: text('Required for queryType 3: an xsd:dateTime, or a day (its start in UTC)'),
  },
} as const;

export const issuesQuerystring = {
  type: 'object',
  properties: { issueId: text('The issue asked for') },
} as const;

export type V2Querystring = Record<string, string | undefined>;

const serviceMessage = {
  type: 'object',
  properties: { code: { type: 'integer' }, description: { type: 'string' }, severity: { type: 'string' } },
  required: ['code', 'description', 'severity'],
} as const;

const messagesBody = (description: string) => ({
  description,
  type: 'object',
  properties: { ServiceMessageArray: { type: 'array', items: serviceMessage } },
  required: ['ServiceMessageArray'],
});

export const errorResponses = {
  400: messagesBody('120 field(s) required, 125 not supported, 300 queryType not found, 302 invalid date'),
  401: { ...messagesBody('110 credentials required, 105 credentials failed'), headers: { 'WWW-Authenticate': { type: 'string' } } },
  403: messagesBody('104 unauthorized for this service'),
  404: messagesBody('301 referenceNumber or issueId not found'),
  429: { ...messagesBody('999 rate limit exceeded (per credential, or failed logins per address or id)'), headers: { 'Retry-After': { type: 'integer' } } },
  500: messagesBody('999 general error'),
};
