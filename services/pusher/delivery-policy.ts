// What follows one delivery's outcome (docs/design/osn-2.1.0.md §2: delivered means
// acknowledged): delivered; tried again later; or parked, to be listed and redelivered by an
// operator. Transient failures are retried with exponential back-off and full jitter (a random
// wait up to the exponential ceiling, so that deliveries held up by one outage do not all come
// back at once), never sooner than the receiver's Retry-After, until the next try would fall past
// the maximum age counted from the first attempt. Refusals are tried a few times in all, with the
// same back-off on a longer base: a refusal is a judgement, not a hiccup, and the retries are for
// a receiver being redeployed or a partner changing its password, which take minutes.
import type { DeliveryOutcome } from './delivery-outcome.js';

export const DEFAULT_RETRY_BASE_MS = 2_000;
/** No wait longer than 10 minutes between tries: a receiver back up is found within minutes. */
export const DEFAULT_RETRY_CAP_MS = 10 * 60_000;
/** OSSN_PUSH_MAX_AGE's default (§2). */
export const DEFAULT_PUSH_MAX_AGE_MS = 24 * 3600_000;
/** Refused attempts in all (the first included) before the delivery is parked. */
export const DEFAULT_REFUSED_ATTEMPTS = 3;
export const DEFAULT_REFUSED_RETRY_BASE_MS = 60_000;

export interface DeliveryPolicyOptions {
  baseMs: number;
  capMs: number;
  maxAgeMs: number;
  refusedAttempts: number;
  refusedBaseMs: number;
  /** Uniform in [0, 1): Math.random in production, a fixed value in tests. */
  random: () => number;
}

export const DEFAULT_DELIVERY_POLICY: DeliveryPolicyOptions = {
  baseMs: DEFAULT_RETRY_BASE_MS,
  capMs: DEFAULT_RETRY_CAP_MS,
  maxAgeMs: DEFAULT_PUSH_MAX_AGE_MS,
  refusedAttempts: DEFAULT_REFUSED_ATTEMPTS,
  refusedBaseMs: DEFAULT_REFUSED_RETRY_BASE_MS,
  random: Math.random,
};

/** A delivery's attempts before the one whose outcome is being judged. */
export interface DeliveryHistory {
  /** When its first attempt began (this attempt's start when it is the first). */
  firstAttemptAt: Date;
  /** Attempts before this one, of any outcome. */
  earlierAttempts: number;
  /** Refused attempts before this one. */
  earlierRefusals: number;
}

export type NextStep = { delivered: true } | { retryAt: Date } | { park: string };

/**
 * The wait before try number `attempt` + 1 (the first try is attempt 1): uniform in
 * [0, min(cap, base · 2^(attempt-1))), whole milliseconds.
 */
export function backOffMs(attempt: number, baseMs: number, capMs: number, random: () => number): number {
  const ceiling = Math.min(capMs, baseMs * 2 ** Math.min(Math.max(attempt - 1, 0), 52));
  const draw = Math.min(Math.max(random(), 0), 1 - Number.EPSILON);
  return Math.floor(draw * ceiling);
}

export function nextStep(history: DeliveryHistory, outcome: DeliveryOutcome, now: Date, options: Partial<DeliveryPolicyOptions> = {}): NextStep {
  const policy = { ...DEFAULT_DELIVERY_POLICY, ...options };
  if (outcome.kind === 'acknowledged') return { delivered: true };
  const deadline = history.firstAttemptAt.getTime() + policy.maxAgeMs;
  if (outcome.kind === 'refused') {
    const refusals = history.earlierRefusals + 1;
    if (refusals >= policy.refusedAttempts) return { park: `refused ${refusals} times: ${outcome.reason}` };
    const retryAt = now.getTime() + backOffMs(refusals, policy.refusedBaseMs, policy.capMs, policy.random);
    if (retryAt > deadline) return { park: `refused, and no try is left within the maximum age of ${hours(policy.maxAgeMs)}: ${outcome.reason}` };
    return { retryAt: new Date(retryAt) };
  }
  const backedOff = now.getTime() + backOffMs(history.earlierAttempts + 1, policy.baseMs, policy.capMs, policy.random);
  const asked = outcome.notBefore?.getTime();
  const retryAt = asked === undefined ? backedOff : Math.max(backedOff, asked);
  if (retryAt > deadline) {
    const why = asked !== undefined && asked > deadline ? `the receiver asks to wait until ${outcome.notBefore?.toISOString()}, past` : 'the next try would fall past';
    return { park: `not delivered: ${why} the maximum age of ${hours(policy.maxAgeMs)} since the first attempt; last: ${outcome.reason}` };
  }
  return { retryAt: new Date(retryAt) };
}

const hours = (ms: number) => (ms % 3600_000 === 0 ? `${ms / 3600_000} h` : `${ms / 1000} s`);
