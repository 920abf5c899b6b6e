import { FormatRegistry } from '@sinclair/typebox';

// RFC 3339 §5.6 date-time: the offset is mandatory, so every timestamp names one instant.
const dateTimePattern = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|[+-](\d{2}):(\d{2}))$/;
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function daysInMonth(year: number, month: number): number {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
}

/**
 * Strict RFC 3339 date-time with offset. Checked field by field because Date.parse is lenient
 * (it takes 2024-02-30). Leap seconds (:60) are refused: a JavaScript Date cannot hold them.
 */
export function isRfc3339DateTime(value: string): boolean {
  const m = dateTimePattern.exec(value);
  if (!m) return false;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const offsetHour = m[7] === undefined ? 0 : Number(m[7]);
  const offsetMinute = m[8] === undefined ? 0 : Number(m[8]);
  return (
    month >= 1 && month <= 12 &&
    day >= 1 && day <= daysInMonth(year, month) &&
    hour <= 23 && minute <= 59 && second <= 59 &&
    offsetHour <= 23 && offsetMinute <= 59
  );
}

export function isUuid(value: string): boolean {
  return uuidPattern.test(value);
}

/**
 * TypeBox checks `format` through a process-wide registry; the contract's schemas rely on these
 * two. Registered on import of this module, which the schema module imports.
 */
export function registerFormats(): void {
  FormatRegistry.Set('date-time', isRfc3339DateTime);
  FormatRegistry.Set('uuid', isUuid);
}

registerFormats();
