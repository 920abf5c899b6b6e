import { afterEach, describe, expect, it } from 'vitest';
import { retryAfterInstant } from './retry-after.js';

const receivedAt = new Date('2026-12-04T12:00:00Z');

describe('retryAfterInstant', () => {
  it.each([
    ['absent', undefined, undefined, undefined],
    ['blank', '  ', undefined, undefined],
    ['0 seconds', '0', undefined, '2026-12-04T12:00:00.000Z'],
    ['120 seconds', '120', undefined, '2026-12-04T12:02:00.000Z'],
    ['seconds with spaces around', ' 30 ', undefined, '2026-12-04T12:00:30.000Z'],
    ['a negative number', '-5', undefined, undefined],
    ['a fraction', '1.5', undefined, undefined],
    ['digits beyond any bound: ten years', '99999999999999999999', undefined, '2036-12-01T12:00:00.000Z'],
    ['an IMF-fixdate', 'Fri, 04 Dec 2026 13:00:00 GMT', undefined, '2026-12-04T13:00:00.000Z'],
    ['an RFC 850 date', 'Friday, 04-Dec-26 13:00:00 GMT', undefined, '2026-12-04T13:00:00.000Z'],
    ['an asctime date', 'Fri Dec  4 13:00:00 2026', undefined, '2026-12-04T13:00:00.000Z'],
    ['a date in the past', 'Fri, 04 Dec 2026 11:00:00 GMT', undefined, '2026-12-04T11:00:00.000Z'],
    ['a date read against the receiver\'s clock, 1 h behind ours', 'Fri, 04 Dec 2026 11:10:00 GMT', 'Fri, 04 Dec 2026 11:00:00 GMT', '2026-12-04T12:10:00.000Z'],
    ['a date beside a Date that is not a date: read as it is', 'Fri, 04 Dec 2026 13:00:00 GMT', 'yesterday', '2026-12-04T13:00:00.000Z'],
    ['an ISO date (not an HTTP-date)', '2026-12-04T13:00:00Z', undefined, undefined],
    ['words', 'later', undefined, undefined],
  ])('%s', (_name, value, date, expected) => {
    expect(retryAfterInstant(value, receivedAt, date)?.toISOString()).toBe(expected);
  });

  describe('on a machine whose zone is not UTC', () => {
    const zone = process.env.TZ;
    afterEach(() => {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    });

    it('reads an asctime date (which names no zone) as GMT', () => {
      process.env.TZ = 'America/New_York';
      expect(retryAfterInstant('Fri Dec  4 13:00:00 2026', receivedAt)?.toISOString()).toBe('2026-12-04T13:00:00.000Z');
    });
  });
});
