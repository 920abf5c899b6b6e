// Lookups in flight per credential, in this process: a credential sending hundreds of requests at
// once (each a 5,000-purchase-order answer) would otherwise hold as many store reads at a time.
// Beyond the bound its lookups wait their turn (the rate limit bounds how many can wait), each for
// at most its deadline; one whose request goes away meanwhile leaves the queue.
import { ErrorCodes, OssnError } from '../../../contracts/errors/ossn-error.js';
import { KeyedSlots } from '../../plumbing/lifecycle/keyed-slots.js';

export const DEFAULT_LOOKUPS_IN_FLIGHT = 4;
export const DEFAULT_LOOKUP_WAIT_MS = 5_000;

/** A lookup whose turn did not come within the wait: its request is answered as a store that does not answer in time is (500). */
export class LookupWaitTimeoutError extends OssnError {
  override readonly name = 'LookupWaitTimeoutError';
  constructor(message: string) {
    super(ErrorCodes.LOOKUP_WAIT_TIMEOUT, message);
  }
}

/** The credential's lookups: at most `max` at once, each waiting at most `maxWaitMs` for its turn. */
export class LookupsInFlight extends KeyedSlots {
  constructor(max = DEFAULT_LOOKUPS_IN_FLIGHT, maxWaitMs = DEFAULT_LOOKUP_WAIT_MS) {
    super({ max, maxWaitMs, waitTimedOut: (ms) => new LookupWaitTimeoutError(`no lookup slot came free within ${ms} ms`) });
  }
}
