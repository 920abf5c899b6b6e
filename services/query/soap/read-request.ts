// Turns an operation element into validated arguments (queries.md, "Missing or bad arguments").
// Every message names the field, so a partner can fix its request without asking.
import type { ShipmentQuery, StatusQuery } from '../../../contracts/lookups.js';
import { SoapClientFault } from './soap-faults.js';
import { childText, type XmlElement } from './parse-envelope.js';
import { parseXsdDateTime } from './xsd-datetime.js';

export const MAX_FIELD_LENGTH = 64;

export interface Login {
  id: string | undefined;
  password: string | undefined;
}

/** Arguments for a lookup, or undefined when the queryType has nothing to return. */
export interface ReadRequest<Q> {
  login: Login;
  query: Q | undefined;
}

function limited(op: XmlElement, field: string): string | undefined {
  const value = childText(op, field);
  // Counted in characters (code points), as XSD maxLength counts them.
  if (value !== undefined && [...value].length > MAX_FIELD_LENGTH) {
    throw new SoapClientFault(`Field too long: ${field} (at most ${MAX_FIELD_LENGTH} characters)`);
  }
  return value;
}

/** wsVersion is accepted but not checked; only its length is. */
export function readLogin(op: XmlElement): Login {
  limited(op, 'wsVersion');
  return { id: limited(op, 'id'), password: limited(op, 'password') };
}

function readQueryType(op: XmlElement): number {
  const text = childText(op, 'queryType');
  if (text === undefined) throw new SoapClientFault('Missing field: queryType');
  if (!/^[+-]?[0-9]+$/.test(text)) throw new SoapClientFault('Invalid field: queryType (not an integer)');
  return Number(text);
}

function readReferenceNumber(op: XmlElement, queryType: number): string | undefined {
  const value = limited(op, 'referenceNumber');
  if (value === undefined && (queryType === 1 || queryType === 2)) {
    throw new SoapClientFault('Missing field: referenceNumber (required for queryType 1 and 2)');
  }
  return value;
}

function readTimestamp(op: XmlElement, field: string): Date {
  const text = childText(op, field);
  if (text === undefined) throw new SoapClientFault(`Missing field: ${field} (required for queryType 3)`);
  const date = parseXsdDateTime(text);
  if (!date) throw new SoapClientFault(`Invalid field: ${field} (not an xsd:dateTime)`);
  return date;
}

export function readStatusDetailsRequest(op: XmlElement): ReadRequest<StatusQuery> {
  const login = readLogin(op);
  const queryType = readQueryType(op);
  const referenceNumber = readReferenceNumber(op, queryType);
  switch (queryType) {
    case 1:
    case 2:
      return { login, query: { queryType, referenceNumber } };
    case 3:
      return { login, query: { queryType, statusTimeStamp: readTimestamp(op, 'statusTimeStamp') } };
    case 4:
      return { login, query: { queryType } };
    default:
      return { login, query: undefined };
  }
}

export function readShipmentRequest(op: XmlElement): ReadRequest<ShipmentQuery> {
  const login = readLogin(op);
  const queryType = readQueryType(op);
  const referenceNumber = readReferenceNumber(op, queryType);
  switch (queryType) {
    case 1:
    case 2:
      return { login, query: { queryType, referenceNumber } };
    case 3:
      return { login, query: { queryType, shipmentDateTimeStamp: readTimestamp(op, 'shipmentDateTimeStamp') } };
    default:
      // 4 was dropped from OSN 1.0.0 (docx change log) though the XSD still lists it.
      return { login, query: undefined };
  }
}
