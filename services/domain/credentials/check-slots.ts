import { availableParallelism } from 'node:os';
// A bound on password checks in flight in this process. Each check is scrypt (32 MiB) on libuv's
// thread pool (4 threads): a flood of guesses from many addresses would otherwise queue there
// without limit, and a partner's login would wait behind all of them.
import { ErrorCodes, OssnError } from '../../../contracts/errors/ossn-error.js';

/** Thrown instead of checking a password while the checks in flight and waiting are at their bound. */
export class PasswordChecksBusyError extends OssnError {
  override readonly name = 'PasswordChecksBusyError';
  constructor() {
    super(ErrorCodes.PASSWORD_CHECKS_BUSY, 'too many password checks in flight');
  }
}

export interface CheckSlotOptions {
  /** Checks running at once (libuv's thread pool runs 4 by default). */
  concurrent: number;
  /** Checks waiting for a slot; one more is refused at once. */
  queued: number;
  /** The longest a check waits for a slot before it is refused. */
  maxWaitMs: number;
}

/**
 * A check is about 70 ms of one core (more on a loaded machine). Checks take all cores but one
 * (one on two cores), never more than libuv's 4 threads, so that the lookups and the store keep a
 * core. A login waits for its check up to MAX_WAIT_MS (a few seconds, inside the store deadline
 * that bounds the whole login), and the queue holds what the checks clear in that time at 100 ms
 * each: a handful of first logins arriving together (eight partners starting at once) wait their
 * turn; only a flood beyond that is refused as busy (503, Retry-After 1).
 */
const concurrentChecks = Math.max(1, Math.min(4, availableParallelism() - 1));
const MAX_WAIT_MS = 3_000;
const CHECK_MS = 100;
export const DEFAULT_CHECK_SLOTS: CheckSlotOptions = { concurrent: concurrentChecks, queued: concurrentChecks * Math.ceil(MAX_WAIT_MS / CHECK_MS), maxWaitMs: MAX_WAIT_MS };

export class CheckSlots {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly options: CheckSlotOptions) {}

  /** Resolves with the function that frees the slot; rejects with PasswordChecksBusyError. */
  acquire(): Promise<() => void> {
    if (this.running < this.options.concurrent) {
      this.running++;
      return Promise.resolve(this.releaser());
    }
    if (this.waiting.length >= this.options.queued) return Promise.reject(new PasswordChecksBusyError());
    return new Promise((resolve, reject) => {
      const grant = () => {
        clearTimeout(timer);
        resolve(this.releaser());
      };
      const timer = setTimeout(() => {
        const at = this.waiting.indexOf(grant);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(new PasswordChecksBusyError());
      }, this.options.maxWaitMs);
      this.waiting.push(grant);
    });
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) next(); // the slot passes straight to the next check
      else this.running--;
    };
  }
}
