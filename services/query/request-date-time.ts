// The one rule for the date-times partners send (statusTimeStamp, shipmentDateTimeStamp), SOAP and
// JSON, 1.0.0 and 2.0.0 alike: an xsd:dateTime, whose time zone is optional (none is UTC, as the
// OSN schema documents and SOAP clients send), or an RFC 3339 date-time (a space or a lowercase t
// between date and time, a zone written +hh or +hhmm). Each interface names the form in its own words.
import { DateTime } from 'luxon';
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

/**
 * The instant a bare date (yyyy-mm-dd) names in the supplier's time zone (an IANA name): its first
 * moment there, 00:00, or the first moment after it where a clock change skips midnight. Undefined
 * when the text names no day. 2.1.0 reads its shipmentDateTimestamp so (docs/design/osn-2.1.0.md §1).
 */
export function startOfDayIn(timeZone: string, date: string): Date | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  // The day itself checked as every partner's date-time is (its month and day in range).
  if (!m || !parseXsdDateTime(`${date}T00:00:00Z`)) return undefined;
  const day = DateTime.fromObject({ year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) }, { zone: timeZone });
  return day.isValid ? day.toJSDate() : undefined;
}
