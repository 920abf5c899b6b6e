import { describe, expect, it } from 'vitest';
import { DeadLetterHeaders } from './headers.js';
import { inTimeOrder, toDeadLetterRecord } from './dead-letter-records.js';

const letter = (partition: number, offset: number, failedAt: string, value: string) =>
  toDeadLetterRecord({ partition, offset: String(offset), timestamp: '0', key: null, value: Buffer.from(value), headers: { [DeadLetterHeaders.failedAt]: failedAt } });

describe('dead letters as an operator reads them', () => {
  it('come oldest first, the topic\'s order breaking ties', () => {
    const letters = [
      letter(0, 5, '2025-05-01T10:05:00Z', '{}'),
      letter(1, 0, '2025-05-01T10:01:00Z', '{}'),
      letter(1, 10, '2025-05-01T10:03:00Z', '{}'),
      letter(1, 9, '2025-05-01T10:03:00Z', '{}'),
      letter(0, 2, '2025-05-01T10:03:00Z', '{}'),
    ];
    expect(inTimeOrder(letters).map((l) => l.id)).toEqual(['1:0', '0:2', '1:9', '1:10', '0:5']);
  });

  it.each<[string, string, string | undefined, string | undefined]>([
    ['an event', JSON.stringify({ eventId: 'e-1', type: 'PackageShipped', data: {} }), 'e-1', 'PackageShipped'],
    ['not JSON', 'not json {', undefined, undefined],
    ['JSON without them', '[1,2]', undefined, undefined],
    ['fields of another kind', JSON.stringify({ eventId: 7, type: null }), undefined, undefined],
  ])('%s: eventId %s, type %s', (_case, value, eventId, eventType) => {
    expect(letter(0, 0, '2025-05-01T10:00:00Z', value)).toMatchObject({ eventId, eventType });
  });
});
