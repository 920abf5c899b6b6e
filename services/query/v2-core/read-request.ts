// Reading a 2.x request, SOAP or JSON alike (oss-osn-2.0.0.md §2, §10.1; 2.1.0 with its RequestRules): the argument checks in
// their order, the first failure answering - 120 (every missing field, in the request element's
// order), 115, 110, 300, 125, 302. The credential, rate limit, scope and lookup come after
// (./answers.ts). Each interface says how it reads a field, a date-time and the login.
import type { OrderStatusV2Query, ShipmentQuery } from '../../../contracts/lookups.js';
import { issueDetailTypes, orderStatusQueryTypes, type IssueDetailType, type OrderStatusQueryType } from '../../../contracts/v2-vocabulary.js';
import type { Login } from '../access/authorize.js';
import { messages, ServiceMessageError, type ServiceMessage } from './service-messages.js';

export const WS_VERSION = '2.0.0';

/** What a version reads its own way: 2.1.0 reads 2.0.0's requests with these changed (docs/design/osn-2.1.0.md §1). */
export interface RequestRules {
  wsVersion: string;
  /**
   * The instant a bare date (yyyy-mm-dd) sent as shipmentDateTimestamp names, undefined when it
   * names none; absent: the start of that day in UTC.
   */
  startOfDay?(date: string): Date | undefined;
}

const V2_RULES: RequestRules = { wsVersion: WS_VERSION };

/** The login a request carries: 'unreadable' when sent but not readable (a bad Basic header): 105. */
export type SentLogin = Login | 'unreadable';

export interface RequestSource {
  /** A field's text, trimmed; undefined when absent, empty or xsi:nil. */
  field(name: string): string | undefined;
  /** SOAP requests carry wsVersion; the JSON twins' path carries the version instead. */
  versioned: boolean;
  /** The login sent; undefined when id or password is missing (110). */
  login(): SentLogin | undefined;
  /** The instant a date-time field names, undefined when it names none. */
  parseDateTime(text: string): Date | undefined;
}

export interface ReadRequest<Q> {
  login: SentLogin;
  query: Q;
}

const refuse = (message: ServiceMessage) => new ServiceMessageError(message);

/** 120 (the missing fields), then 115, then 110: the checks every 2.0.0 request starts with. */
function readLogin(source: RequestSource, missing: readonly (string | false)[], wsVersion = WS_VERSION): SentLogin {
  const fields = [source.versioned && source.field('wsVersion') === undefined && 'wsVersion', ...missing].filter((f): f is string => f !== false);
  if (fields.length > 0) throw refuse(messages.fieldsRequired(fields));
  if (source.versioned && source.field('wsVersion') !== wsVersion) throw refuse(messages.versionNotFound());
  const login = source.login();
  if (login === undefined) throw refuse(messages.credentialsRequired());
  return login;
}

/**
 * A field sent under one of several spellings. Sent under two, it is given twice (125): a gateway
 * reading one spelling must never pass a request whose other spelling the service reads.
 */
function firstOf(source: RequestSource, ...names: string[]): string | undefined {
  const given = names.flatMap((name) => {
    const value = source.field(name);
    return value === undefined ? [] : [{ name, value }];
  });
  const twice = given[1];
  if (twice) throw refuse(messages.notSupported(twice.name, '(given more than once)'));
  return given[0]?.value;
}

/** xsd:boolean's four spellings, and nothing else (a Map: no `constructor` or `__proto__` to find). */
const XSD_BOOLEAN: ReadonlyMap<string, boolean> = new Map([
  ['true', true],
  ['1', true],
  ['false', false],
  ['0', false],
]);

const isQueryType = (text: string): text is OrderStatusQueryType => (orderStatusQueryTypes as readonly string[]).includes(text);
const isIssueDetailType = (text: string): text is IssueDetailType => (issueDetailTypes as readonly string[]).includes(text);

/** GetOrderStatusRequest. */
export function readOrderStatusRequest(source: RequestSource): ReadRequest<OrderStatusV2Query> {
  const queryType = source.field('queryType');
  const referenceNumber = source.field('referenceNumber');
  const statusTimeStamp = firstOf(source, 'statusTimeStamp', 'statusTimestamp');
  const byReference = queryType === 'poSearch' || queryType === 'soSearch';
  const login = readLogin(source, [
    queryType === undefined && 'queryType',
    byReference && referenceNumber === undefined && 'referenceNumber',
    queryType === 'lastUpdate' && statusTimeStamp === undefined && 'statusTimeStamp',
  ]);
  if (queryType === undefined || !isQueryType(queryType)) throw refuse(messages.queryTypeNotFound());
  if (queryType === 'transactionId') throw refuse(messages.notSupported('queryType', queryType));
  const detailText = source.field('returnIssueDetailType');
  if (detailText !== undefined && !isIssueDetailType(detailText)) throw refuse(messages.notSupported('returnIssueDetailType', detailText));
  const productText = source.field('returnProductDetail');
  const returnProductDetail = productText === undefined ? false : XSD_BOOLEAN.get(productText);
  if (returnProductDetail === undefined) throw refuse(messages.notSupported('returnProductDetail', productText ?? ''));
  const query: OrderStatusV2Query = {
    queryType,
    returnIssueDetailType: detailText ?? (queryType === 'allOpenIssues' ? 'openIssues' : 'noIssues'),
    returnProductDetail,
  };
  if (byReference) query.referenceNumber = referenceNumber;
  // Read only where it is asked for: another queryType ignores it, as 1.0.0 does.
  if (queryType === 'lastUpdate') {
    const since = source.parseDateTime(statusTimeStamp ?? '');
    if (!since) throw refuse(messages.invalidDate('statusTimeStamp'));
    query.statusTimeStamp = since;
  }
  return { login, query };
}

/** GetIssueRequest. */
export function readIssueRequest(source: RequestSource): ReadRequest<{ issueId: string }> {
  const issueId = source.field('issueId');
  const login = readLogin(source, [issueId === undefined && 'issueId']);
  return { login, query: { issueId: issueId ?? '' } };
}

/** GetServiceMethodsRequest, and any request read for its login alone. */
export function readServiceMethodsRequest(source: RequestSource, rules: RequestRules = V2_RULES): ReadRequest<undefined> {
  return { login: readLogin(source, [], rules.wsVersion), query: undefined };
}

const BARE_DATE = /^\d{4,}-\d{2}-\d{2}$/;

/** OSN GetOrderShipmentNotificationRequest: queryType xsd:int 1, 2 or 3. */
export function readShipmentRequest(source: RequestSource, rules: RequestRules = V2_RULES): ReadRequest<ShipmentQuery> {
  const queryText = source.field('queryType');
  const queryType = queryText !== undefined && /^[+-]?[0-9]+$/.test(queryText) ? Number(queryText) : undefined;
  const referenceNumber = source.field('referenceNumber');
  // shipmentDateTimeStamp: 1.0.0's spelling.
  const since = firstOf(source, 'shipmentDateTimestamp', 'shipmentDateTimeStamp');
  const login = readLogin(source, [
    queryText === undefined && 'queryType',
    (queryType === 1 || queryType === 2) && referenceNumber === undefined && 'referenceNumber',
    queryType === 3 && since === undefined && 'shipmentDateTimestamp',
  ], rules.wsVersion);
  if (queryType !== 1 && queryType !== 2 && queryType !== 3) throw refuse(messages.queryTypeNotFound());
  if (queryType !== 3) return { login, query: { queryType, referenceNumber } };
  // The docx calls it a DATE while the XSD says dateTime: a bare day is its start in UTC, or as the rules say.
  const text = since ?? '';
  let shipmentDateTimeStamp: Date | undefined;
  if (!BARE_DATE.test(text)) shipmentDateTimeStamp = source.parseDateTime(text);
  else shipmentDateTimeStamp = rules.startOfDay ? rules.startOfDay(text) : source.parseDateTime(`${text}T00:00:00Z`);
  if (!shipmentDateTimeStamp) throw refuse(messages.invalidDate('shipmentDateTimestamp'));
  return { login, query: { queryType, shipmentDateTimeStamp } };
}
