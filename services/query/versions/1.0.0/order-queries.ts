// From a partner's request to the lookup it asks, for SOAP and JSON alike: which queryType needs
// which argument, how a missing or bad one is refused, and the lookup each queryType runs
// ("Missing or bad arguments"). Each interface reads its own request (XML elements, a query
// string), names its arguments and date-times in its own words, and writes its own answers.
import type { OrderStatusView, ShipmentNotificationView } from '../../../../contracts/lookup-answers.js';
import type { OrderLookups, ShipmentQuery, StatusQuery } from '../../../../contracts/lookups.js';
import type { Credential } from '../../../domain/credentials/credential.js';
import type { RequestWork } from '../../http/request-work.js';


/** How an interface reads and words its arguments. */
export interface ArgumentDialect {
  /** What an argument is called in an error: "field" (SOAP), "query parameter" (JSON). */
  argument: string;
  /** The date-time form it reads, as an error names it: "an xsd:dateTime". */
  dateTimeForm: string;
  /** The instant a date-time argument names, or undefined when it is not of that form. */
  parseDateTime(text: string): Date | undefined;
  /** The error that refuses a request with this text (a SOAP Client fault, a JSON 400). */
  refuse(message: string): Error;
}

/** A request's arguments as its interface has read them (absent ones undefined), date-times still text. */
export interface OrderStatusArguments {
  queryType: number;
  referenceNumber?: string | undefined;
  statusTimeStamp?: string | undefined;
}

export interface ShipmentArguments {
  queryType: number;
  referenceNumber?: string | undefined;
  shipmentDateTimeStamp?: string | undefined;
}

/** What a valid request asks: its answer (`A`) once a credential is authorized. */
export interface OrderQuery<A> {
  /** The answer's elements: none when the queryType has nothing to return; else the lookup's, run in one of the credential's slots. */
  answer(lookups: OrderLookups, credential: Credential, work?: RequestWork): Promise<A>;
}

function referenceNumber(value: string | undefined, dialect: ArgumentDialect): string {
  const why = 'referenceNumber (required for queryType 1 and 2)';
  if (value === undefined) throw dialect.refuse(`Missing ${dialect.argument}: ${why}`);
  if (value === '') throw dialect.refuse(`Empty ${dialect.argument}: ${why}`);
  return value;
}

function dateTime(field: string, value: string | undefined, dialect: ArgumentDialect): Date {
  if (value === undefined) throw dialect.refuse(`Missing ${dialect.argument}: ${field} (required for queryType 3)`);
  const date = dialect.parseDateTime(value);
  if (!date) throw dialect.refuse(`Invalid ${dialect.argument}: ${field} (not ${dialect.dateTimeForm})`);
  return date;
}

/** getOrderStatusDetails: queryType 1 (purchase order), 2 (sales order), 3 (changed since), 4 (open). */
export function orderStatusQuery(args: OrderStatusArguments, dialect: ArgumentDialect): OrderQuery<OrderStatusView[]> {
  const query = statusLookupArguments(args, dialect);
  return { answer: (lookups, credential, work) => answer(query, credential, work, [], (q, signal) => lookups.orderStatus(credential.clientIds, q, signal)) };
}

function statusLookupArguments(args: OrderStatusArguments, dialect: ArgumentDialect): StatusQuery | undefined {
  switch (args.queryType) {
    case 1:
    case 2:
      return { queryType: args.queryType, referenceNumber: referenceNumber(args.referenceNumber, dialect) };
    case 3:
      return { queryType: 3, statusTimeStamp: dateTime('statusTimeStamp', args.statusTimeStamp, dialect) };
    case 4:
      return { queryType: 4 };
    default:
      return undefined;
  }
}

/**
 * getOrderShipmentNotification: queryType 1 (purchase order), 2 (sales order), 3 (new since). The
 * answer comes a batch of purchase orders at a time as it is read (sent as it comes: partners.md,
 * "Large answers").
 */
export function shipmentQuery(args: ShipmentArguments, dialect: ArgumentDialect): OrderQuery<AsyncIterable<ShipmentNotificationView[]>> {
  const query = shipmentLookupArguments(args, dialect);
  return {
    answer: (lookups, credential, work) => answer(query, credential, work, noBatches(), (q, signal) => lookups.shipmentNotificationBatches(credential.clientIds, q, signal)),
  };
}

async function* noBatches<V>(): AsyncGenerator<V[]> {}

function shipmentLookupArguments(args: ShipmentArguments, dialect: ArgumentDialect): ShipmentQuery | undefined {
  switch (args.queryType) {
    case 1:
    case 2:
      return { queryType: args.queryType, referenceNumber: referenceNumber(args.referenceNumber, dialect) };
    case 3:
      return { queryType: 3, shipmentDateTimeStamp: dateTime('shipmentDateTimeStamp', args.shipmentDateTimeStamp, dialect) };
    default:
      // 4 was dropped from OSN 1.0.0 (docx change log) though the XSD still lists it: it and any
      // other value answer an empty list.
      return undefined;
  }
}

async function answer<Q, A>(
  query: Q | undefined,
  credential: Credential,
  work: RequestWork | undefined,
  none: A,
  lookUp: (query: Q, signal: AbortSignal | undefined) => Promise<A>,
): Promise<A> {
  if (!query) return none;
  await work?.admitLookup(credential);
  return lookUp(query, work?.signal);
}
