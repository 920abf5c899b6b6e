// Turns an operation element into validated arguments: the SOAP reading of a request (its fields,
// their lengths, queryType as xsd:int); which queryType needs what is decided in ../order-queries.ts.
// Every message names the field, so a partner can fix its request without asking.
import type { OrderStatusView, ShipmentNotificationView } from '../../../../../contracts/lookup-answers.js';
import { orderStatusQuery, shipmentQuery, type ArgumentDialect, type OrderQuery } from '../order-queries.js';
import { fieldTooLong, MAX_FIELD_LENGTH } from '../../../protocol/field-length.js';
import { SoapClientFault } from '../../../protocol/soap/soap-faults.js';
import { childText, type XmlElement } from '../../../protocol/soap/parse-envelope.js';
import { parseRequestDateTime } from '../../../request-date-time.js';

/** The id and password fields as sent (either may be missing); the access step (../../../access/authorize.ts) checks them as a Login. */
export interface LoginFields {
  id: string | undefined;
  password: string | undefined;
}

/** A request's login and what it asks. */
export interface ReadRequest<A> {
  login: LoginFields;
  query: OrderQuery<A>;
}

const SOAP_ARGUMENTS: ArgumentDialect = {
  argument: 'field',
  dateTimeForm: 'an xsd:dateTime',
  parseDateTime: parseRequestDateTime,
  refuse: (message) => new SoapClientFault(message),
};

function limited(op: XmlElement, field: string): string | undefined {
  const value = childText(op, field);
  if (value !== undefined && fieldTooLong(value)) {
    throw new SoapClientFault(`Field too long: ${field} (at most ${MAX_FIELD_LENGTH} characters)`);
  }
  return value;
}

/** wsVersion is accepted but not checked; only its length is. */
export function readLogin(op: XmlElement): LoginFields {
  limited(op, 'wsVersion');
  return { id: limited(op, 'id'), password: limited(op, 'password') };
}

function readQueryType(op: XmlElement): number {
  const text = childText(op, 'queryType');
  if (text === undefined) throw new SoapClientFault('Missing field: queryType');
  if (!/^[+-]?[0-9]+$/.test(text)) throw new SoapClientFault('Invalid field: queryType (not an integer)');
  return Number(text);
}

/** The fields every lookup operation reads, in the order they are checked. */
function readCommon(op: XmlElement) {
  const login = readLogin(op);
  const queryType = readQueryType(op);
  return { login, queryType, referenceNumber: limited(op, 'referenceNumber') };
}

export function readStatusDetailsRequest(op: XmlElement): ReadRequest<OrderStatusView[]> {
  const { login, ...args } = readCommon(op);
  return { login, query: orderStatusQuery({ ...args, statusTimeStamp: childText(op, 'statusTimeStamp') }, SOAP_ARGUMENTS) };
}

export function readShipmentRequest(op: XmlElement): ReadRequest<AsyncIterable<ShipmentNotificationView[]>> {
  const { login, ...args } = readCommon(op);
  return { login, query: shipmentQuery({ ...args, shipmentDateTimeStamp: childText(op, 'shipmentDateTimeStamp') }, SOAP_ARGUMENTS) };
}
