import { describe, expect, it } from 'vitest';
import type { DeliveryOutcome } from './delivery-outcome.js';
import { ReceiverCircuit, type CircuitOptions } from './receiver-circuit.js';

/** A step of a script: move the clock to `at` (ms), then admit or record, and expect. */
type Step = { at: number } & ({ admit: unknown } | { record: DeliveryOutcome['kind']; state: unknown });

function play(steps: Step[], options: Partial<CircuitOptions> = { failuresToOpen: 3, coolDownMs: 1_000, maxCoolDownMs: 5_000 }) {
  let clock = 0;
  const circuit = new ReceiverCircuit(options, () => clock);
  steps.forEach((step, i) => {
    clock = step.at;
    if ('admit' in step) expect(circuit.admit(), `step ${i}`).toEqual(step.admit);
    else {
      circuit.record(step.record);
      expect(circuit.state, `step ${i}`).toEqual(step.state);
    }
  });
}

const send = { send: true, probe: false };
const probe = { send: true, probe: true };
const wait = (ms: number) => ({ send: false, notBefore: new Date(ms) });
const closed = (failures = 0) => ({ kind: 'closed', failures });
const open = (until: number, coolDownMs: number) => ({ kind: 'open', until, coolDownMs });

describe('ReceiverCircuit', () => {
  const scripts: Array<[string, Step[], Partial<CircuitOptions>?]> = [
    [
      'stays closed below the failures that open it',
      [
        { at: 0, admit: send },
        { at: 1, record: 'transient', state: closed(1) },
        { at: 2, record: 'transient', state: closed(2) },
        { at: 3, admit: send },
      ],
    ],
    [
      'an answer, a refusal too, ends a run of failures',
      [
        { at: 1, record: 'transient', state: closed(1) },
        { at: 2, record: 'transient', state: closed(2) },
        { at: 3, record: 'refused', state: closed(0) },
        { at: 4, record: 'transient', state: closed(1) },
        { at: 5, record: 'transient', state: closed(2) },
        { at: 6, record: 'acknowledged', state: closed(0) },
      ],
    ],
    [
      'opens on the Nth failure in a row and sends nothing until the cool-down has passed',
      [
        { at: 1, record: 'transient', state: closed(1) },
        { at: 2, record: 'transient', state: closed(2) },
        { at: 10, record: 'transient', state: open(1_010, 1_000) },
        { at: 11, admit: wait(1_010) },
        { at: 1_009, admit: wait(1_010) },
        { at: 1_010, admit: probe },
      ],
    ],
    [
      'half-open: one probe only; its success closes the circuit',
      [
        { at: 1, record: 'transient', state: closed(1) },
        { at: 2, record: 'transient', state: closed(2) },
        { at: 3, record: 'transient', state: open(1_003, 1_000) },
        { at: 1_003, admit: probe },
        { at: 1_004, admit: wait(2_003) },
        { at: 1_500, record: 'acknowledged', state: closed(0) },
        { at: 1_501, admit: send },
      ],
    ],
    [
      'a failed probe opens it again for twice the cool-down, up to the cap; a success resets the cool-down',
      [
        { at: 1, record: 'transient', state: closed(1) },
        { at: 2, record: 'transient', state: closed(2) },
        { at: 3, record: 'transient', state: open(1_003, 1_000) },
        { at: 1_003, admit: probe },
        { at: 1_100, record: 'transient', state: open(3_100, 2_000) },
        { at: 3_099, admit: wait(3_100) },
        { at: 3_100, admit: probe },
        { at: 3_200, record: 'transient', state: open(7_200, 4_000) },
        { at: 7_200, admit: probe },
        { at: 7_300, record: 'transient', state: open(12_300, 5_000) },
        { at: 12_300, admit: probe },
        { at: 12_400, record: 'transient', state: open(17_400, 5_000) },
        { at: 17_400, admit: probe },
        { at: 17_500, record: 'refused', state: closed(0) },
        { at: 17_600, record: 'transient', state: closed(1) },
        { at: 17_700, record: 'transient', state: closed(2) },
        { at: 17_800, record: 'transient', state: open(18_800, 1_000) },
      ],
    ],
    [
      'a probe whose outcome never comes blocks for one cool-down, then the next probe goes',
      [
        { at: 1, record: 'transient', state: closed(1) },
        { at: 2, record: 'transient', state: closed(2) },
        { at: 3, record: 'transient', state: open(1_003, 1_000) },
        { at: 1_003, admit: probe },
        { at: 2_002, admit: wait(2_003) },
        { at: 2_003, admit: probe },
        { at: 2_004, admit: wait(3_003) },
      ],
    ],
    [
      'while open, a late failure of a request sent before changes nothing; a late answer closes it',
      [
        { at: 1, record: 'transient', state: closed(1) },
        { at: 2, record: 'transient', state: closed(2) },
        { at: 3, record: 'transient', state: open(1_003, 1_000) },
        { at: 500, record: 'transient', state: open(1_003, 1_000) },
        { at: 600, record: 'acknowledged', state: closed(0) },
        { at: 601, admit: send },
      ],
    ],
    [
      'the defaults: open after 5 failures for 30 s',
      [
        { at: 1, record: 'transient', state: closed(1) },
        { at: 2, record: 'transient', state: closed(2) },
        { at: 3, record: 'transient', state: closed(3) },
        { at: 4, record: 'transient', state: closed(4) },
        { at: 5, record: 'transient', state: open(30_005, 30_000) },
        { at: 30_004, admit: wait(30_005) },
        { at: 30_005, admit: probe },
        { at: 30_006, record: 'transient', state: open(90_006, 60_000) },
      ],
      {},
    ],
  ];

  it.each(scripts)('%s', (_name, steps, options) => play(steps, options));

  it('reads the clock it is given, and Date.now without one', () => {
    const circuit = new ReceiverCircuit({ failuresToOpen: 1 });
    const before = Date.now();
    circuit.record('transient');
    const state = circuit.state;
    expect(state.kind === 'open' && state.until).toBeGreaterThanOrEqual(before + 30_000);
  });
});
