import { describe, expect, it } from 'vitest';
import { sampleEvent } from '../../test/fixtures/sample-events.js';
import { foldEvents } from '../../projections/fold.js';
import { batchOutcome } from './batch-outcome.js';

const status = (sequence: number, salesOrderNumber = 'SO-1') =>
  sampleEvent('SalesOrderStatusChanged', sequence, { statusId: 20, purchaseOrderNumber: 'PO-1' }, { clientId: 'C1', salesOrderNumber });

describe('batchOutcome', () => {
  it('tells applied events from duplicates (the sequence applied) and stale ones (below it)', () => {
    const loaded = foldEvents([status(1), status(5)]);
    const items = [status(5), status(3), status(6), status(6), status(2, 'SO-2'), status(1, 'SO-2')].map((event, i) => ({ event, source: i }));
    const outcome = batchOutcome(loaded, items, new Set());
    expect(outcome).toEqual({ applied: [2, 4], duplicate: 2, stale: 2 });
  });

  it('counts a rejected event as neither', () => {
    const items = [status(1), status(2)].map((event, i) => ({ event, source: i }));
    expect(batchOutcome(foldEvents([]), items, new Set([0]))).toEqual({ applied: [1], duplicate: 0, stale: 0 });
  });
});
