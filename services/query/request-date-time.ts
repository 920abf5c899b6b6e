// The one rule for the date-times partners send (statusTimeStamp, shipmentDateTimeStamp), SOAP and
// JSON, 1.0.0 and 2.0.0 alike: an xsd:dateTime, whose time zone is optional (none is UTC, as the
// OSN schema documents and SOAP clients send), or an RFC 3339 date-time (a space or a lowercase t
// between date and time, a zone written +hh or +hhmm). Each interface names the form in its own words.
import { parseXsdDateTime } from './protocol/xsd-datetime.js';

// RFC 3339's forms beyond xsd:dateTime: t or space, zone +hh, +hhmm, +hh:mm.
const RFC3339 = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2}:\d{2}(?:\.\d+)?)(?:([Zz])|([+-]\d{2})(?::?(\d{2}))?)$/;

/** The instant a partner's date-time names, or undefined when it names none. */
export function parseRequestDateTime(text: string): Date | undefined {
  const xsd = parseXsdDateTime(text);
  if (xsd) return xsd;
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const [, date, time, z, hours, minutes] = m;
  return parseXsdDateTime(`${date}T${time}${z ? 'Z' : `${hours}:${minutes ?? '00'}`}`);
}
