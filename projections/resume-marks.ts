import { eventKey, type ErpEvent } from '../contracts/erp-events.js';
import { foldEventTo, type FoldResult } from './fold.js';
import { statusApplies } from './sequence-guard.js';

// The projector writes a sales order's two read models in two documents, without a transaction
// (one left open by a projector that died mid-write would hold both documents for a minute). A
// store failure between the two writes leaves one document ahead of the other, and the status
// guard (sequence-guard.ts) reads both sequences: folded again on a document that already holds
// the batch, a status the first attempt applied would look late and be skipped by the other. So
// each document says which stretch of its partition it already holds and which statuses applied
// there; the retry folds those events only into the document that lacks them, with the first
// attempt's decisions. See docs/erp-events.md, "The sequence rule".

/** An event's place in the event topic. */
export interface TopicPosition {
  partition: number;
  offset: number;
}

/**
 * What a read-model document holds of its partition: every event of its sales order with an
 * offset from `from` to `through` is folded into it (applied or skipped for good), and `statuses`
 * are the sequences of the SalesOrderStatusChanged among them that applied.
 */
export interface ResumeMark {
  partition: number;
  from: number;
  through: number;
  statuses: number[];
}

export interface ResumeMarks {
  orderStatus: Map<string, ResumeMark>;
  shipments: Map<string, ResumeMark>;
}

/** A batch of one partition: where it starts (the committed offset), and each item's position. */
export interface BatchPositions<T> {
  start: TopicPosition;
  of(source: T): TopicPosition;
}

export const noMarks = (): ResumeMarks => ({ orderStatus: new Map(), shipments: new Map() });

/** Whether the document with `mark` already holds the event at `at`. */
export function holds(mark: ResumeMark | undefined, at: TopicPosition): boolean {
  return mark !== undefined && mark.partition === at.partition && mark.from <= at.offset && at.offset <= mark.through;
}

/**
 * The mark of a document written by a batch starting at `start` that folded its events up to
 * `through`: a document still holding events of this batch from an earlier attempt (written since
 * the start) keeps what it held, so a retry shorter than the attempt loses no decision.
 */
export function markAfter(existing: ResumeMark | undefined, start: TopicPosition, through: number, statuses: number[]): ResumeMark {
  if (existing && existing.partition === start.partition && existing.through >= start.offset) {
    return {
      partition: start.partition,
      from: Math.min(existing.from, start.offset),
      through: Math.max(existing.through, through),
      statuses: [...new Set([...existing.statuses, ...statuses])].sort((a, b) => a - b),
    };
  }
  return { partition: start.partition, from: start.offset, through, statuses };
}

export interface ResumedFold extends FoldResult {
  /** The marks of the sales orders folded, for the documents that change. */
  marks: ResumeMarks;
}

/**
 * Folds a batch of one partition as the projector does: an event a document already holds is not
 * folded into it again, and a status the other document holds is decided by that document's mark;
 * every other event as `foldEventInto` does.
 */
export function foldResuming<T>(
  items: { event: ErpEvent; source: T }[],
  initial: Pick<FoldResult, 'orderStatus' | 'shipments'>,
  marks: ResumeMarks,
  positions: BatchPositions<T>,
): ResumedFold {
  const result: FoldResult = { orderStatus: new Map(initial.orderStatus), shipments: new Map(initial.shipments), rejected: [] };
  const applied = new Map<string, number[]>();
  const through = new Map<string, number>();
  for (const { event, source } of items) {
    const at = positions.of(source);
    const key = eventKey(event.clientId, event.salesOrderNumber);
    through.set(key, Math.max(through.get(key) ?? at.offset, at.offset));
    const [statusMark, shipmentsMark] = [marks.orderStatus.get(key), marks.shipments.get(key)];
    const held = { orderStatus: holds(statusMark, at), shipments: holds(shipmentsMark, at) };
    let targets = { orderStatus: !held.orderStatus, shipments: !held.shipments };
    if (event.type === 'SalesOrderStatusChanged' && (targets.orderStatus || targets.shipments)) {
      const decidedBy = held.orderStatus ? statusMark : held.shipments ? shipmentsMark : undefined;
      const applies = decidedBy
        ? decidedBy.statuses.includes(event.sequence)
        : statusApplies(result.orderStatus.get(key), result.shipments.get(key), event);
      targets = { orderStatus: targets.orderStatus && applies, shipments: targets.shipments && applies };
      if (applies && foldEventTo(result, event, targets)) applied.set(key, [...(applied.get(key) ?? []), event.sequence]);
      continue;
    }
    foldEventTo(result, event, targets);
  }
  const written: ResumeMarks = noMarks();
  for (const [key, last] of through) {
    const statuses = applied.get(key) ?? [];
    if (result.orderStatus.get(key) !== initial.orderStatus.get(key)) written.orderStatus.set(key, markAfter(marks.orderStatus.get(key), positions.start, last, statuses));
    if (result.shipments.get(key) !== initial.shipments.get(key)) written.shipments.set(key, markAfter(marks.shipments.get(key), positions.start, last, statuses));
  }
  return { ...result, marks: written };
}
