// The JSON reading of a request's arguments: the query string the schema has validated, its
// date-times as RFC 3339; which queryType needs what is decided in ../order-queries.ts.
import { orderStatusQuery, shipmentQuery, type ArgumentDialect } from '../order-queries.js';
import { parseXsdDateTime } from '../soap/xsd-datetime.js';
import { BadRequestError, JSON_DATE_TIME_FORM } from './json-errors.js';
import type { ShipmentsQuerystring, StatusQuerystring } from './schemas.js';

// The forms the schema's date-time format admits (RFC 3339: t or space, zone +hh, +hhmm, +hh:mm).
const RFC3339 = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2}:\d{2}(?:\.\d+)?)(?:([Zz])|([+-]\d{2})(?::?(\d{2}))?)$/;

/** The instant, read as the SOAP side reads xsd:dateTime so the twins agree; undefined if none. */
export function parseDateTime(text: string): Date | undefined {
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const [, date, time, z, hours, minutes] = m;
  return parseXsdDateTime(`${date}T${time}${z ? 'Z' : `${hours}:${minutes ?? '00'}`}`);
}

const JSON_ARGUMENTS: ArgumentDialect = {
  argument: 'query parameter',
  dateTimeForm: JSON_DATE_TIME_FORM,
  parseDateTime,
  refuse: (message) => new BadRequestError(message),
};

export const statusRequest = (q: StatusQuerystring) => orderStatusQuery(q, JSON_ARGUMENTS);

export const shipmentsRequest = (q: ShipmentsQuerystring) => shipmentQuery(q, JSON_ARGUMENTS);
