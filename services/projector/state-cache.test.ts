import { describe, expect, it } from 'vitest';
import type { OrderStatusState, ShipmentsState } from '../../projections/state.js';
import type { LoadedStates } from '../adapters/mongodb/writes.js';
import { StateCache } from './state-cache.js';
import { noMarks } from '../../projections/resume-marks.js';

const status = (salesOrderNumber: string, sequence: number): OrderStatusState => ({
  clientId: 'C1',
  salesOrderNumber,
  sequence,
  statusId: 20,
  open: true,
  validTimestamp: new Date('2026-11-01T10:00:00Z'),
});
const shipments = (salesOrderNumber: string, sequence: number): ShipmentsState => ({
  clientId: 'C1',
  salesOrderNumber,
  sequence,
  completedAsWhole: false,
  complete: false,
  locations: [],
});
const states = (entries: [string, OrderStatusState?, ShipmentsState?][]): LoadedStates => ({
  orderStatus: new Map(entries.flatMap(([key, s]) => (s ? [[key, s] as const] : []))),
  shipments: new Map(entries.flatMap(([key, , sh]) => (sh ? [[key, sh] as const] : []))),
  marks: noMarks(),
});

describe('the states a projector keeps between batches', () => {
  it('answers what it was told, knows a sales order without documents from one it never saw, and sends the rest to the store', () => {
    const cache = new StateCache(10);
    cache.remember(['C1:A', 'C1:B'], states([['C1:A', status('A', 3), shipments('A', 2)]]));
    const { known, missing } = cache.lookup(['C1:A', 'C1:B', 'C1:C']);
    expect(known).toEqual(states([['C1:A', status('A', 3), shipments('A', 2)]]));
    expect(missing).toEqual(['C1:C']); // C1:B is known to have no documents yet
  });

  it('makes room by dropping the sales orders used least recently', () => {
    const cache = new StateCache(2);
    cache.remember(['C1:A'], states([['C1:A', status('A', 1)]]));
    cache.remember(['C1:B'], states([['C1:B', status('B', 1)]]));
    cache.lookup(['C1:A']); // A is now more recent than B
    cache.remember(['C1:C'], states([['C1:C', status('C', 1)]]));
    expect(cache.size).toBe(2);
    expect(cache.lookup(['C1:A', 'C1:B', 'C1:C']).missing).toEqual(['C1:B']);
  });

  it('forgets on request, and keeps nothing with a capacity of 0', () => {
    const cache = new StateCache(5);
    cache.remember(['C1:A', 'C1:B'], states([['C1:A', status('A', 1)], ['C1:B', status('B', 1)]]));
    cache.forget(['C1:A']);
    expect(cache.lookup(['C1:A', 'C1:B']).missing).toEqual(['C1:A']);

    const none = new StateCache(0);
    none.remember(['C1:A'], states([['C1:A', status('A', 1)]]));
    expect(none.lookup(['C1:A']).missing).toEqual(['C1:A']);
  });

  it('keeps the resume marks of the documents it wrote, for a retry of a half-written batch', () => {
    const cache = new StateCache(10);
    const written = states([['C1:A', status('A', 3), shipments('A', 2)]]);
    const mark = { partition: 1, from: 40, through: 47, statuses: [3] };
    written.marks!.orderStatus.set('C1:A', mark);
    cache.remember(['C1:A'], written);
    const { known } = cache.lookup(['C1:A']);
    expect(known.marks?.orderStatus.get('C1:A')).toEqual(mark);
    expect(known.marks?.shipments.has('C1:A')).toBe(false);
  });
});
