import { describe, expect, it } from 'vitest';
import { clientsToPush, pushLagMs } from './push-targets.js';

const linked = { active: true, scopes: ['osn'], clientIds: ['c1', 'c2'] };

describe('clientsToPush', () => {
  it.each([
    ['every linked client without --client', {}, linked, ['c1', 'c2']],
    ['its one client while linked', { clientId: 'c2' }, linked, ['c2']],
    ['none for a client no longer linked', { clientId: 'c3' }, linked, []],
    ['none for a credential gone', {}, undefined, []],
    ['none for an inactive credential', {}, { ...linked, active: false }, []],
    ['none without the osn scope', {}, { ...linked, scopes: ['order_status'] }, []],
  ] as const)('%s', (_, subscription, credential, expected) => {
    expect(clientsToPush(subscription, credential)).toEqual(expected);
  });
});

describe('pushLagMs', () => {
  const now = new Date('2026-12-01T10:00:10Z');
  it.each([
    ['the oldest waiting news when some waits', new Date('2026-12-01T10:00:00Z'), new Date('2026-12-01T10:00:08Z'), 10_000],
    ['the last poll when nothing waits', undefined, new Date('2026-12-01T10:00:08Z'), 2_000],
    ['where it starts before its first poll', undefined, undefined, 70_000],
    ['never below 0', undefined, new Date('2026-12-01T10:00:11Z'), 0],
  ] as const)('%s', (_, oldest, cursor, expected) => {
    expect(pushLagMs(now, oldest, cursor, new Date('2026-12-01T09:59:00Z'))).toBe(expected);
  });
});
