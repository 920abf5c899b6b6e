import { describe, expect, it } from 'vitest';
import { requireAdvancing, type BatchEffects } from './batch.js';
import type { OrderStatusState } from './state.js';

const status = (sequence: number) => ({ clientId: 'C1', salesOrderNumber: 'SO-1', sequence }) as OrderStatusState;
const effects = (before: number | undefined, after: number): BatchEffects => ({
  orderStatus: [{ before: before === undefined ? undefined : status(before), after: status(after) }],
  shipments: [],
});

describe('requireAdvancing', () => {
  it.each([
    ['a new document', undefined, 1],
    ['a sequence moved forward', 3, 4],
    ['a sequence moved several forward', 3, 9],
  ])('lets %s through', (_case, before, after) => {
    expect(() => requireAdvancing(effects(before, after))).not.toThrow();
  });

  it.each([
    ['the same sequence', 3, 3],
    ['a sequence moved back', 3, 2],
  ])('refuses %s, naming the sales order', (_case, before, after) => {
    expect(() => requireAdvancing(effects(before, after))).toThrow(`C1:SO-1: a change from sequence ${before} to ${after} does not advance it`);
  });
});
