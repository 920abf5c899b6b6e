import { describe, expect, it } from 'vitest';
import type { DeliveryOutcome } from './delivery-outcome.js';
import { backOffMs, nextStep, type DeliveryHistory, type DeliveryPolicyOptions } from './delivery-policy.js';

const t0 = new Date('2026-12-04T00:00:00Z');
const at = (ms: number) => new Date(t0.getTime() + ms);
const H = 3600_000;

const acknowledged: DeliveryOutcome = { kind: 'acknowledged', transactionId: 'T', messages: [] };
const transient = (notBefore?: Date): DeliveryOutcome => ({ kind: 'transient', reason: 'HTTP 503', status: 503, notBefore });
const refused: DeliveryOutcome = { kind: 'refused', reason: 'HTTP 400', status: 400, messages: [] };

const history = (earlierAttempts: number, earlierRefusals = 0, firstAttemptAt = t0): DeliveryHistory => ({ firstAttemptAt, earlierAttempts, earlierRefusals });
/** The highest draw a random source in [0, 1) gives. */
const HIGHEST = 1 - Number.EPSILON;
const options = (random: number, more: Partial<DeliveryPolicyOptions> = {}): Partial<DeliveryPolicyOptions> => ({ random: () => random, ...more });

describe('backOffMs: full jitter under an exponential ceiling', () => {
  it.each([
    // attempt, random, base, cap, wait
    [1, 0, 2_000, 600_000, 0],
    [1, 0.5, 2_000, 600_000, 1_000],
    [1, HIGHEST, 2_000, 600_000, 1_999],
    [2, HIGHEST, 2_000, 600_000, 3_999],
    [5, 0.5, 2_000, 600_000, 16_000],
    [9, HIGHEST, 2_000, 600_000, 511_999],
    [10, HIGHEST, 2_000, 600_000, 599_999],
    [10, 0.5, 2_000, 600_000, 300_000],
    [10_000, HIGHEST, 2_000, 600_000, 599_999],
    // A source out of its range is held to it.
    [1, 1, 2_000, 600_000, 1_999],
    [1, 7, 2_000, 600_000, 1_999],
    [1, -1, 2_000, 600_000, 0],
  ])('attempt %i, random %d, base %i, cap %i: %i ms', (attempt, random, base, cap, wait) => {
    expect(backOffMs(attempt, base, cap, () => random)).toBe(wait);
  });

  it('stays within [0, ceiling) over many draws of Math.random', () => {
    for (let attempt = 1; attempt <= 12; attempt++) {
      const ceiling = Math.min(600_000, 2_000 * 2 ** (attempt - 1));
      for (let i = 0; i < 200; i++) {
        const wait = backOffMs(attempt, 2_000, 600_000, Math.random);
        expect(wait).toBeGreaterThanOrEqual(0);
        expect(wait).toBeLessThan(ceiling);
      }
    }
  });
});

describe('nextStep', () => {
  const cases: Array<[string, DeliveryHistory, DeliveryOutcome, Date, Partial<DeliveryPolicyOptions>, unknown]> = [
    ['acknowledged: delivered', history(0), acknowledged, t0, options(0.5), { delivered: true }],
    ['acknowledged past the maximum age: delivered all the same', history(40), acknowledged, at(25 * H), options(0.5), { delivered: true }],
    // Transient
    ['a first transient failure: retried within the base', history(0), transient(), at(100), options(0.5), { retryAt: at(1_100) }],
    ['the draw at its lowest: retried at once', history(0), transient(), at(100), options(0), { retryAt: at(100) }],
    ['the 4th transient failure: the ceiling is 16 s', history(3), transient(), at(60_000), options(HIGHEST), { retryAt: at(60_000 + 15_999) }],
    ['many failures: the cap', history(30), transient(), at(H), options(HIGHEST), { retryAt: at(H + 599_999) }],
    ['base and cap configured', history(2), transient(), t0, options(0.5, { baseMs: 100, capMs: 300 }), { retryAt: at(150) }],
    ['Retry-After later than the back-off: honoured', history(0), transient(at(120_000)), t0, options(0.5), { retryAt: at(120_000) }],
    ['Retry-After sooner than the back-off: the back-off', history(5), transient(at(1_000)), t0, options(0.5), { retryAt: at(32_000) }],
    ['Retry-After already past: the back-off', history(0), transient(at(-60_000)), t0, options(0.5), { retryAt: at(1_000) }],
    ['Retry-After exactly at the maximum age: still tried', history(3), transient(at(24 * H)), at(23 * H), options(0), { retryAt: at(24 * H) }],
    [
      'Retry-After beyond the maximum age: parked',
      history(3),
      transient(at(24 * H + 1)),
      at(H),
      options(0),
      { park: expect.stringMatching(/the receiver asks to wait until 2026-12-05T00:00:00.001Z, past the maximum age of 24 h .*HTTP 503/) },
    ],
    ['the next try exactly at the maximum age: tried', history(30), transient(), at(24 * H - 300_000), options(0.5), { retryAt: at(24 * H) }],
    ['the next try 1 ms past the maximum age: parked', history(30), transient(), at(24 * H - 299_999), options(0.5), { park: expect.stringContaining('the next try would fall past the maximum age of 24 h') }],
    ['the attempt itself ended past the maximum age: parked', history(30), transient(), at(25 * H), options(0), { park: expect.stringContaining('maximum age') }],
    ['a maximum age configured', history(0), transient(), at(9_000), options(0.5, { maxAgeMs: 10_000 }), { retryAt: at(10_000) }],
    ['a maximum age configured, passed', history(0), transient(), at(9_001), options(0.5, { maxAgeMs: 10_000 }), { park: expect.stringContaining('maximum age of 10 s') }],
    // The clock
    [
      'now before the first attempt (another pusher\'s clock ahead): the age counts from the first attempt',
      history(0, 0, at(60_000)),
      transient(),
      t0,
      options(0.5),
      { retryAt: at(1_000) },
    ],
    ['earlier refusals do not shorten a transient failure\'s back-off', history(4, 2), transient(), t0, options(0.5), { retryAt: at(16_000) }],
    // Refused
    ['a first refusal: retried on the refusals\' base', history(0), refused, t0, options(0.5), { retryAt: at(30_000) }],
    ['a second refusal: the ceiling doubles', history(5, 1), refused, t0, options(0.5), { retryAt: at(60_000) }],
    ['a third refusal: parked', history(2, 2), refused, t0, options(0.5), { park: 'refused 3 times: HTTP 400' }],
    ['refusals after transient failures count alone', history(10, 0), refused, t0, options(0.5), { retryAt: at(30_000) }],
    ['one refused attempt configured: parked at once', history(0), refused, t0, options(0.5, { refusedAttempts: 1 }), { park: 'refused 1 times: HTTP 400' }],
    ['a refusal whose retry falls past the maximum age: parked', history(9, 0), refused, at(24 * H - 1_000), options(0.5), { park: expect.stringContaining('no try is left within the maximum age of 24 h') }],
  ];

  it.each(cases)('%s', (_name, past, outcome, now, opts, expected) => {
    expect(nextStep(past, outcome, now, opts)).toEqual(expected);
  });

  it('never retries sooner than now, whatever the draw', () => {
    for (const random of [0, 0.25, HIGHEST]) {
      const step = nextStep(history(3), transient(), at(5_000), options(random));
      expect('retryAt' in step && step.retryAt.getTime()).toBeGreaterThanOrEqual(5_000 + t0.getTime());
    }
  });
});
