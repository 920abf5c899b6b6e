// Reads an xsd:dateTime (request timestamps). A value without a time zone is taken as UTC, which
// is what the OSN schema documents and what OSS clients send in practice.

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
