// The circuit of one receiver (docs/design/osn-2.1.0.md §2: one receiver down holds up no
// other): after repeated transient failures in a row it opens, and nothing is sent to the
// receiver until a cool-down has passed; then one probe goes through (half-open). An answer
// closes it; a failed probe opens it again for twice the cool-down, up to a cap. Deliveries kept
// waiting meanwhile spend none of their attempts on a receiver known to be down.
//
// Any answer that is not a transient failure closes it, a refusal included: the receiver is up.
// An answer to a request sent before the circuit opened counts like the probe's: it is news of the
// receiver all the same. A probe whose answer is never recorded (its caller stopped) blocks
// nothing for long: after one more cool-down the next probe goes through.
import type { DeliveryOutcome } from './delivery-outcome.js';

/** Transient failures in a row that open the circuit. */
export const DEFAULT_CIRCUIT_FAILURES = 5;
export const DEFAULT_CIRCUIT_COOL_DOWN_MS = 30_000;
/** The cool-down doubles on each failed probe up to this: a receiver back up is probed within 10 minutes. */
export const DEFAULT_CIRCUIT_MAX_COOL_DOWN_MS = 10 * 60_000;

export interface CircuitOptions {
  failuresToOpen: number;
  coolDownMs: number;
  maxCoolDownMs: number;
}

export type CircuitState =
  | { kind: 'closed'; failures: number }
  | { kind: 'open'; until: number; coolDownMs: number }
  | { kind: 'half-open'; probeSince: number; coolDownMs: number };

export type Admission = { send: true; probe: boolean } | { send: false; notBefore: Date };

export class ReceiverCircuit {
  private readonly options: CircuitOptions;
  private current: CircuitState = { kind: 'closed', failures: 0 };

  /** `now`: the clock, in ms since the epoch (Date.now; a test's own). */
  constructor(
    options: Partial<CircuitOptions> = {},
    private readonly now: () => number = Date.now,
  ) {
    this.options = {
      failuresToOpen: options.failuresToOpen ?? DEFAULT_CIRCUIT_FAILURES,
      coolDownMs: options.coolDownMs ?? DEFAULT_CIRCUIT_COOL_DOWN_MS,
      maxCoolDownMs: options.maxCoolDownMs ?? DEFAULT_CIRCUIT_MAX_COOL_DOWN_MS,
    };
  }

  get state(): CircuitState {
    return this.current;
  }

  /** Whether a request may be sent now; when it is a probe, its outcome must be recorded. */
  admit(): Admission {
    const now = this.now();
    const state = this.current;
    if (state.kind === 'closed') return { send: true, probe: false };
    const probeDue = state.kind === 'open' ? state.until : state.probeSince + state.coolDownMs;
    if (now < probeDue) return { send: false, notBefore: new Date(probeDue) };
    this.current = { kind: 'half-open', probeSince: now, coolDownMs: state.coolDownMs };
    return { send: true, probe: true };
  }

  /** The outcome of a request that was sent. */
  record(outcome: DeliveryOutcome['kind']): void {
    const state = this.current;
    if (outcome !== 'transient') {
      this.current = { kind: 'closed', failures: 0 };
      return;
    }
    if (state.kind === 'closed') {
      const failures = state.failures + 1;
      this.current = failures >= this.options.failuresToOpen ? this.openFor(this.options.coolDownMs) : { kind: 'closed', failures };
    } else if (state.kind === 'half-open') {
      this.current = this.openFor(Math.min(state.coolDownMs * 2, this.options.maxCoolDownMs));
    }
    // Open: a failure of a request sent before it opened changes nothing.
  }

  private openFor(coolDownMs: number): CircuitState {
    return { kind: 'open', until: this.now() + coolDownMs, coolDownMs };
  }
}
