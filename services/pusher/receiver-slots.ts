// A bound on requests in flight per receiver (docs/design/osn-2.1.0.md §2: one receiver down
// holds up no other), a receiver being a URL's origin: subscriptions that post to one host share
// its bound. Beyond it, a delivery waits its turn in order; one whose caller stops leaves the queue.
//
// The project's one keyed bound (services/plumbing/lifecycle/keyed-slots.ts, also the lookups' per
// credential) rather than bottleneck: bottleneck cannot withdraw one queued job whose caller went
// away (only stop the whole limiter), its Group's clean-up timer cannot be stopped
// (services/query/rate-limit/fixed-windows.ts), and its queue runs on timers of its own.
import { KeyedSlots } from '../plumbing/lifecycle/keyed-slots.js';

/** Four requests at once per receiver: enough to keep a healthy one busy, few enough not to swamp a small one. */
export const DEFAULT_REQUESTS_PER_RECEIVER = 4;

/** The receiver a URL posts to: its origin (scheme, host, port). */
export function receiverKey(url: string): string {
  return new URL(url).origin;
}

/** A delivery that waited this long for a slot gives up (and is retried later): no wait without a deadline. */
export const DEFAULT_RECEIVER_SLOT_WAIT_MS = 60_000;

/** A delivery whose turn at its receiver did not come within the wait. */
export class ReceiverSlotWaitTimeoutError extends Error {
  override readonly name = 'ReceiverSlotWaitTimeoutError';
}

/** The receivers' slots: at most `max` requests at once per receiver, each waiting at most `maxWaitMs` for its turn. */
export class ReceiverSlots extends KeyedSlots {
  constructor(max = DEFAULT_REQUESTS_PER_RECEIVER, maxWaitMs = DEFAULT_RECEIVER_SLOT_WAIT_MS) {
    super({ max, maxWaitMs, waitTimedOut: (ms) => new ReceiverSlotWaitTimeoutError(`no slot at the receiver came free within ${ms} ms`) });
  }
}
