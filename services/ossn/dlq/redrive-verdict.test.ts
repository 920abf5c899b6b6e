import { describe, expect, it } from 'vitest';
import type { ErpEvent } from '../../../contracts/erp-events.js';
import { locationRecorded, packageShipped, statusChanged } from '../../../test/fixtures/sample-events.js';
import { foldEvents } from '../../../projections/fold.js';
import { toDeadLetterRecord, type DeadLetterRecord } from '../../domain/dead-letters/dead-letter-records.js';
import { judgeRedrive, salesOrdersOf } from './redrive-verdict.js';

let offset = 0;
const letter = (value: ErpEvent | string, kind = 'rejected'): DeadLetterRecord =>
  toDeadLetterRecord({
    partition: 0,
    offset: String(offset++),
    timestamp: '0',
    key: Buffer.from('C1:SO-9'),
    value: Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)),
    headers: { 'x-error-kind': kind },
  });

/** The stored states after `events`, as loadStates gives them. */
const stored = (events: ErpEvent[]) => {
  const { orderStatus, shipments } = foldEvents(events);
  return { orderStatus, shipments };
};

const outcome = (verdicts: ReturnType<typeof judgeRedrive>) =>
  verdicts.map((v) => (v.send ? `send ${v.record.id} after ${v.after}` : `refuse ${v.record.id}: ${v.reason}`));

describe('judgeRedrive', () => {
  it('refuses a letter that is still not an event of the contract, with the parse reason', () => {
    const bad = letter('not json', 'not-json');
    const [verdict] = judgeRedrive([bad], stored([]));
    expect(verdict).toMatchObject({ send: false });
    expect(!verdict!.send && verdict!.reason).toMatch(/^not an event of the contract: not JSON/);
  });

  it('refuses a letter its sales order moved past, naming the sequences', () => {
    // PackageShipped 5 was rejected (location 2 unknown); the ERP then recorded the location at 6.
    const shipped = letter(packageShipped(5, 2, 1));
    expect(outcome(judgeRedrive([shipped], stored([statusChanged(1), locationRecorded(6, 2)])))).toEqual([
      `refuse ${shipped.id}: sales order C1:SO-9 moved past it (sequence 6 applied, this one is 5): the ERP must republish what it carries with a sequence above 6`,
    ]);
  });

  it('sends a shipment letter below a later status change: the shipments read model has not moved past it, so the projector applies it', () => {
    // Stored: status 1, location 2, status 4. A PackageShipped at 3 dead-lettered for a wrong key.
    const shipped = letter(packageShipped(3, 2, 1), 'wrong-key');
    expect(outcome(judgeRedrive([shipped], stored([statusChanged(1), locationRecorded(2, 2), statusChanged(4, { purchaseOrderNumber: 'PO-1', statusId: 60 })])))).toEqual([`send ${shipped.id} after 4`]);
  });

  it('refuses a letter at the sequence already applied (one re-sent before)', () => {
    const shipped = letter(packageShipped(3, 1, 1));
    const verdicts = judgeRedrive([shipped], stored([statusChanged(1), locationRecorded(2, 1), packageShipped(3, 1, 1)]));
    expect(outcome(verdicts)).toEqual([expect.stringContaining('(sequence 3 applied, this one is 3)')]);
  });

  it('refuses a letter that the fold rejects again, with the fold reason', () => {
    const shipped = letter(packageShipped(5, 2, 1));
    expect(outcome(judgeRedrive([shipped], stored([statusChanged(1), locationRecorded(2, 1)])))).toEqual([
      `refuse ${shipped.id}: rejected again: unknown location 2 for sales order C1:SO-9`,
    ]);
  });

  it('refuses a status that arrived after a higher sequence of either read model: it applies to neither', () => {
    const late = letter(statusChanged(4, { purchaseOrderNumber: 'PO-B', statusId: 20 }), 'wrong-key');
    expect(outcome(judgeRedrive([late], stored([statusChanged(1), locationRecorded(2, 1), packageShipped(3, 1, 1), packageShipped(5, 1, 2)])))).toEqual([
      `refuse ${late.id}: sales order C1:SO-9 moved past it (sequence 5 applied, this one is 4): the ERP must republish what it carries with a sequence above 5`,
    ]);
  });

  it('sends a letter that applies on top of the last applied sequence', () => {
    const misKeyed = letter(packageShipped(3, 1, 1), 'wrong-key');
    expect(outcome(judgeRedrive([misKeyed], stored([statusChanged(1), locationRecorded(2, 1)])))).toEqual([`send ${misKeyed.id} after 2`]);
  });

  it('judges the letters of one sales order in sequence order, each on what the ones before leave', () => {
    const shipped = letter(packageShipped(3, 1, 1), 'wrong-key');
    const location = letter(locationRecorded(2, 1), 'wrong-key');
    expect(outcome(judgeRedrive([shipped, location], stored([statusChanged(1)])))).toEqual([
      `send ${location.id} after 1`,
      `send ${shipped.id} after 2`,
    ]);
  });

  it('sends one of two letters of the same event and says the other is carried by it', () => {
    const first = letter(packageShipped(3, 1, 1), 'wrong-key');
    const twin = letter(packageShipped(3, 1, 1), 'wrong-key');
    expect(outcome(judgeRedrive([first, twin], stored([statusChanged(1), locationRecorded(2, 1)])))).toEqual([
      `send ${first.id} after 2`,
      `refuse ${twin.id}: sales order C1:SO-9 moved past it (sequence 3 re-sent with dead letter ${first.id}, this one is 3): the ERP must republish what it carries with a sequence above 3`,
    ]);
  });

  it('leaves the stored states it was given unchanged', () => {
    const states = stored([statusChanged(1)]);
    const before = new Map(states.shipments);
    judgeRedrive([letter(locationRecorded(2, 1))], states);
    expect(states.shipments).toEqual(before);
  });
});

describe('salesOrdersOf', () => {
  it('names the sales order of each letter that is an event, once', () => {
    const other = packageShipped(4, 1, 1);
    other.salesOrderNumber = 'SO-8';
    expect(salesOrdersOf([letter(packageShipped(3, 1, 1)), letter(locationRecorded(2, 1)), letter(other), letter('{}', 'schema')])).toEqual([
      'C1:SO-9',
      'C1:SO-8',
    ]);
  });
});
