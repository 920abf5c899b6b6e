import { FormatRegistry } from '@sinclair/typebox';

// RFC 3339 §5.6 date-time: the offset is mandatory, so every timestamp names one instant.
const dateTimePattern = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function daysInMonth(year: number, month: number): number {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
}

interface DateTimeParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  offsetSign: number;
  offsetHour: number;
  offsetMinute: number;
}

/** The parts of an RFC 3339 date-time, or undefined when the text is not one. */
function partsOf(value: string): DateTimeParts | undefined {
  const m = dateTimePattern.exec(value);
  if (!m) return undefined;
  return {
    year: Number(m[1]),
    month: Number(m[2]),
    day: Number(m[3]),
    hour: Number(m[4]),
    minute: Number(m[5]),
    second: Number(m[6]),
    offsetSign: m[7] === '-' ? -1 : 1,
    offsetHour: m[8] === undefined ? 0 : Number(m[8]),
    offsetMinute: m[9] === undefined ? 0 : Number(m[9]),
  };
}

function isValidDateTime({ year, month, day, hour, minute, second, offsetHour, offsetMinute }: DateTimeParts): boolean {
  return (
    month >= 1 && month <= 12 &&
    day >= 1 && day <= daysInMonth(year, month) &&
    hour <= 23 && minute <= 59 && second <= 59 &&
    offsetHour <= 23 && offsetMinute <= 59
  );
}

/**
 * Strict RFC 3339 date-time with offset. Checked field by field because Date.parse is lenient
 * (it takes 2024-02-30). Leap seconds (:60) are refused: a JavaScript Date cannot hold them.
 */
export function isRfc3339DateTime(value: string): boolean {
  const parts = partsOf(value);
  return parts !== undefined && isValidDateTime(parts);
}

// The instants the answers can write: xsd:dateTime (XSD 1.0) has no year 0000, and an answer writes
// UTC with four-digit years, so years past 9999 (or before 0001) once in UTC have no valid form.
const firstAnswerable = Date.parse('0001-01-01T00:00:00Z');
const lastAnswerable = Date.parse('9999-12-31T23:59:59.999Z');
export const answerableYears = '0001 to 9999 in UTC';

/** Whether a valid date-time (checked by isValidDateTime first: every field in its range) is in the years the answers can write. */
function isAnswerable(parts: DateTimeParts): boolean {
  const { year, month, day, hour, minute, second, offsetSign, offsetHour, offsetMinute } = parts;
  // Only the offset moves the instant, by less than a day: only the first and last years' date-times
  // can leave the years.
  if (year > 1 && year < 9999) return true;
  const offsetMinutes = offsetSign * (offsetHour * 60 + offsetMinute);
  // setUTCFullYear, not Date.UTC: Date.UTC reads years 0 to 99 as 1900 to 1999.
  const instant = new Date(0);
  instant.setUTCFullYear(year, month - 1, day);
  instant.setUTCHours(hour, minute - offsetMinutes, second);
  return instant.getTime() >= firstAnswerable && instant.getTime() <= lastAnswerable;
}

/** The contract's date-time: RFC 3339 with offset, in the years the answers can write (the text read once: it is on the projector's hot path). */
export function isContractDateTime(value: string): boolean {
  const parts = partsOf(value);
  return parts !== undefined && isValidDateTime(parts) && isAnswerable(parts);
}

export function isUuid(value: string): boolean {
  return uuidPattern.test(value);
}

/**
 * TypeBox checks `format` through a process-wide registry; the contract's schemas rely on these
 * two. Registered on import of this module, which the schema module imports.
 */
export function registerFormats(): void {
  FormatRegistry.Set('date-time', isContractDateTime);
  FormatRegistry.Set('uuid', isUuid);
}

registerFormats();
