// Reads an xsd:dateTime (request timestamps) and writes one (answers, XML and JSON alike). A value
// without a time zone is taken as UTC, which is what the OSN schema documents and what OSS clients
// send in practice; one written is in UTC with Z.

const DATE_TIME = /^(\d{4,})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:\d{2})?$/;

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** The instant an xsd:dateTime names, or undefined when the text is not one (negative years are not accepted). */
export function parseXsdDateTime(text: string): Date | undefined {
  const m = DATE_TIME.exec(text);
  if (!m) return undefined;
  const [, y = '', mo = '', d = '', h = '', mi = '', s = '', fraction, zone] = m;
  if (y.length > 4 && y.startsWith('0')) return undefined;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (year === 0 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (minute > 59 || second > 59) return undefined;
  // 24:00:00 is allowed and means the start of the next day.
  if (hour > 24 || (hour === 24 && (minute !== 0 || second !== 0 || /[1-9]/.test(fraction ?? '')))) return undefined;
  let offsetMinutes = 0;
  if (zone && zone !== 'Z') {
    const zh = Number(zone.slice(1, 3));
    const zm = Number(zone.slice(4, 6));
    if (zm > 59 || zh > 14 || (zh === 14 && zm !== 0)) return undefined;
    offsetMinutes = (zone.startsWith('-') ? -1 : 1) * (zh * 60 + zm);
  }
  const millis = fraction ? Number(fraction.slice(0, 3).padEnd(3, '0')) : 0;
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute - offsetMinutes, second, millis);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

const MS_PER_DAY = 86_400_000;
/** The instants whose toISOString has a four-digit year (0000 to 9999); others are left to it. */
const FOUR_DIGIT_YEARS = [Date.parse('0000-01-01T00:00:00.000Z'), Date.parse('9999-12-31T23:59:59.999Z')] as const;
const TWO_DIGITS = Array.from({ length: 100 }, (_, n) => String(n).padStart(2, '0'));
const THREE_DIGITS = Array.from({ length: 1000 }, (_, n) => String(n).padStart(3, '0'));

/**
 * xsd:dateTime in UTC with Z: the text of toISOString (an invalid date throws as it does), worked
 * out with integer arithmetic, about three times faster than toISOString, which an answer calls for
 * every date it holds (bench/soap-builders.ts). The civil date from the day number is Howard
 * Hinnant's days-to-civil algorithm (proleptic Gregorian, as ECMAScript's).
 */
export function formatDateTime(value: Date): string {
  const time = value.getTime();
  if (!(time >= FOUR_DIGIT_YEARS[0] && time <= FOUR_DIGIT_YEARS[1])) return value.toISOString();
  const msOfDay = ((time % MS_PER_DAY) + MS_PER_DAY) % MS_PER_DAY;
  const shifted = (time - msOfDay) / MS_PER_DAY + 719_468; // days since 0000-03-01
  const era = Math.floor(shifted / 146_097);
  const dayOfEra = shifted - era * 146_097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthFromMarch = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * monthFromMarch + 2) / 5) + 1;
  const month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  const seconds = Math.floor(msOfDay / 1000);
  const clock = `${TWO_DIGITS[Math.floor(seconds / 3600)]}:${TWO_DIGITS[Math.floor(seconds / 60) % 60]}:${TWO_DIGITS[seconds % 60]}.${THREE_DIGITS[msOfDay % 1000]}`;
  return `${String(year).padStart(4, '0')}-${TWO_DIGITS[month]}-${TWO_DIGITS[day]}T${clock}Z`;
}
