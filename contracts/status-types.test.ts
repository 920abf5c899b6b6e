import { describe, expect, it } from 'vitest';
import { isOpen, statusIds, statusName, statusTypes } from './status-types.js';

describe('status types', () => {
  it('is the OSS 1.0.0 table', () => {
    expect(statusTypes.map((s) => `${s.statusId} ${s.statusName}`)).toEqual([
      '10 Order Received',
      '11 Order Entry Hold',
      '20 Order Confirmed',
      '30 Pre-Production',
      '40 General Hold',
      '41 Credit Hold',
      '42 Proof Hold',
      '43 Art Hold',
      '44 Back Order Hold',
      '60 In Production',
      '70 In Storage',
      '75 Partial Shipment',
      '80 Complete',
      '99 Canceled',
    ]);
    expect(statusIds).toEqual(statusTypes.map((s) => s.statusId));
  });

  it('names each status and nothing else', () => {
    expect(statusName(44)).toBe('Back Order Hold');
    expect(statusName(12)).toBeUndefined();
    expect(statusName(75)).toBe('Partial Shipment');
    expect(statusName(76)).toBeUndefined();
  });

  it('counts an order open until complete or canceled', () => {
    expect(statusIds.filter((id) => !isOpen(id))).toEqual([80, 99]);
  });
});
