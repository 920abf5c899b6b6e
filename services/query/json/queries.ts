// Validated query strings to lookup arguments: the rules the schema cannot say (queries.md,
// "Missing or bad arguments"). undefined means the queryType has nothing to return.
import type { ShipmentQuery, StatusQuery } from '../../../contracts/lookups.js';
import { parseXsdDateTime } from '../soap/xsd-datetime.js';
import { BadRequestError } from './json-errors.js';
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

function referenceNumber(value: string | undefined): string {
  if (value === undefined) throw new BadRequestError('Missing query parameter: referenceNumber (required for queryType 1 and 2)');
  if (value === '') throw new BadRequestError('Empty query parameter: referenceNumber (required for queryType 1 and 2)');
  return value;
}

function timestamp(field: string, value: string | undefined): Date {
  if (value === undefined) throw new BadRequestError(`Missing query parameter: ${field} (required for queryType 3)`);
  const date = parseDateTime(value);
  if (!date) throw new BadRequestError(`Invalid query parameter: ${field} (not an ISO 8601 date-time with time zone)`);
  return date;
}

export function statusQuery(q: StatusQuerystring): StatusQuery | undefined {
  switch (q.queryType) {
    case 1:
    case 2:
      return { queryType: q.queryType, referenceNumber: referenceNumber(q.referenceNumber) };
    case 3:
      return { queryType: 3, statusTimeStamp: timestamp('statusTimeStamp', q.statusTimeStamp) };
    case 4:
      return { queryType: 4 };
    default:
      return undefined;
  }
}

export function shipmentQuery(q: ShipmentsQuerystring): ShipmentQuery | undefined {
  switch (q.queryType) {
    case 1:
    case 2:
      return { queryType: q.queryType, referenceNumber: referenceNumber(q.referenceNumber) };
    case 3:
      return { queryType: 3, shipmentDateTimeStamp: timestamp('shipmentDateTimeStamp', q.shipmentDateTimeStamp) };
    default:
      // 4 was dropped from OSN 1.0.0; like SOAP, it and any other value answer an empty list.
      return undefined;
  }
}
