import { parseErpEvent, type ErpEvent } from '../../../contracts/erp-events.js';
import { messageOf } from '../../projector/fold-step.js';
import { projectBatch } from '../../projector/project-batch.js';
import { hasEffects, statesOf } from '../../projector/sales-order-slices.js';
import { documentId } from '../../adapters/mongodb/documents.js';
import type { LoadedStates } from '../../adapters/mongodb/writes.js';
import type { DeadLetterRecord } from '../../domain/dead-letters/dead-letter-records.js';

/**
 * What `ossn dlq redrive` does with one chosen dead letter: send it, because it applies on top of
 * the sales order's last applied sequence (`after`), or refuse it, saying why. Re-sending a letter
 * that the projector would skip or reject again would report a redrive that changes nothing.
 */
export type RedriveVerdict =
  | { record: DeadLetterRecord; send: true; after: number }
  | { record: DeadLetterRecord; send: false; reason: string };

interface Parsed {
  record: DeadLetterRecord;
  event?: ErpEvent;
  problem?: string;
}

function parse(record: DeadLetterRecord): Parsed {
  const parsed = parseErpEvent(record.message.value ?? Buffer.alloc(0));
  return parsed.ok ? { record, event: parsed.event } : { record, problem: `not an event of the contract: ${parsed.errors.join('; ')}` };
}

/** The sales orders whose stored states the chosen letters are judged against. */
export function salesOrdersOf(records: DeadLetterRecord[]): string[] {
  const keys = records.map(parse).flatMap(({ event }) => (event ? [documentId(event.clientId, event.salesOrderNumber)] : []));
  return [...new Set(keys)];
}

/** The sales order's last applied sequence, for the report: whether a letter applies is the fold's to say. */
const lastSequence = (states: LoadedStates, key: string): number =>
  Math.max(states.orderStatus.get(key)?.sequence ?? 0, states.shipments.get(key)?.sequence ?? 0);

/**
 * Judges the chosen letters against `stored`, the states of their sales orders in the active
 * read-model version, by folding each with the projector's own fold (pure). Letters are judged,
 * and are to be sent, in ascending sequence (stable): those of one sales order then reach its
 * partition in the order the sequence rule needs, and each is judged on the state the letters
 * sent before it leave behind (a package after the location re-sent with it).
 */
export function judgeRedrive(records: DeadLetterRecord[], stored: LoadedStates): RedriveVerdict[] {
  const parsed = records.map(parse).sort((a, b) => (a.event?.sequence ?? 0) - (b.event?.sequence ?? 0));
  const states: LoadedStates = { orderStatus: new Map(stored.orderStatus), shipments: new Map(stored.shipments) };
  /** Which letter of this redrive moved a sales order on, to say so when it is what stops a later one. */
  const movedBy = new Map<string, string>();
  return parsed.map(({ record, event, problem }): RedriveVerdict => {
    if (!event) return { record, send: false, reason: problem ?? 'not an event of the contract' };
    const key = documentId(event.clientId, event.salesOrderNumber);
    const last = lastSequence(states, key);
    let projected;
    try {
      projected = projectBatch(statesOf(states, key), [{ event, source: record }]);
    } catch (error) {
      // As the projector does with a fold that throws (fold-step.ts): the event is to blame.
      return { record, send: false, reason: `the projection failed on this event: ${messageOf(error)}` };
    }
    const rejection = projected.rejected[0];
    if (rejection) return { record, send: false, reason: `rejected again: ${rejection.reason}` };
    // Changing nothing, by the projector's own sequence rule (a status above both read models'
    // sequences or neither, so never one alone): moved past.
    if (!hasEffects(projected.effects)) {
      const by = movedBy.get(key);
      const applied = by ? `sequence ${last} re-sent with dead letter ${by}` : `sequence ${last} applied`;
      return {
        record,
        send: false,
        reason: `sales order ${key} moved past it (${applied}, this one is ${event.sequence}): the ERP must republish what it carries with a sequence above ${last}`,
      };
    }
    for (const [k, s] of projected.states.orderStatus) states.orderStatus.set(k, s);
    for (const [k, s] of projected.states.shipments) states.shipments.set(k, s);
    movedBy.set(key, record.id);
    return { record, send: true, after: last };
  });
}
