// xsd:dateTime as answers write it: its own arithmetic rather than toISOString, so it is held to
// toISOString's text for every instant a Date holds.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatDateTime } from './xsd-datetime.js';

describe('formatDateTime', () => {
  it('writes what toISOString writes, for any instant', () => {
    fc.assert(
      fc.property(fc.date({ noInvalidDate: true }), (date) => {
        expect(formatDateTime(date)).toBe(date.toISOString());
      }),
      { numRuns: 2_000 },
    );
  });

  it.each([
    '0000-01-01T00:00:00.000Z',
    '0000-02-29T23:59:59.999Z',
    '1899-12-31T23:59:59.999Z',
    '1900-03-01T00:00:00.000Z',
    '1969-12-31T23:59:59.999Z',
    '1970-01-01T00:00:00.000Z',
    '2000-02-29T12:34:56.789Z',
    '2024-12-31T23:59:59.999Z',
    '9999-12-31T23:59:59.999Z',
    '-000001-12-31T23:59:59.999Z',
    '+010000-01-01T00:00:00.000Z',
    '+275760-09-13T00:00:00.000Z',
  ])('%s', (text) => {
    expect(formatDateTime(new Date(text))).toBe(text);
  });

  it('refuses an invalid date as toISOString does', () => {
    expect(() => formatDateTime(new Date(Number.NaN))).toThrow(RangeError);
  });
});
