import { describe, expect, it } from 'vitest';
import type { ErpEvent } from '../contracts/erp-events.js';
import {
  asV2,
  contactsRecorded,
  issueRecorded,
  linesRecorded,
  locationRecorded,
  packageShipped,
  statusChanged,
} from '../test/fixtures/sample-events.js';
import { deepFreeze } from '../test/support/deep-freeze.js';
import { EventRejectedError } from './event-rejected.js';
import { evolveOrderStatus } from './order-status.js';
import type { OrderStatusState } from './state.js';

// The order-status read model under contract v2 (oss-osn-2.0.0.md §5, §6, §10.3-4).

function stateAfter(...events: ErpEvent[]): OrderStatusState {
  const state = events.reduce<OrderStatusState | undefined>((s, e) => deepFreeze(evolveOrderStatus(s, e)), undefined);
  if (!state) throw new Error('no state');
  return state;
}

const rejection = (run: () => unknown): string => {
  try {
    run();
  } catch (error) {
    if (error instanceof EventRejectedError) return error.reason;
    throw error;
  }
  throw new Error('expected a rejection');
};

const line = (salesOrderLineNumber: string, productId = 'PC61') => ({ salesOrderLineNumber, productId, quantityOrdered: { value: 12, uom: 'EA' as const } });

describe('order status v2: SalesOrderStatusChanged', () => {
  it("keeps v2's fields, the days as written and the sequence of the status", () => {
    const event = asV2(
      statusChanged(4, {
        purchaseOrderNumber: 'PO-1',
        statusId: 75,
        expectedShipDate: '2025-05-10T23:59:00-05:00',
        expectedDeliveryDate: '2025-05-14T00:30:00+02:00',
        statusV2: 'shipped',
        additionalExplanation: 'Rest ships Friday',
        qualityProofURL: 'https://proofs.example/SO-9',
      }),
    );
    expect(stateAfter(event)).toStrictEqual({
      clientId: 'C1',
      salesOrderNumber: 'SO-9',
      sequence: 4,
      purchaseOrderNumber: 'PO-1',
      statusId: 75,
      open: true,
      expectedShipDate: new Date('2025-05-11T04:59:00Z'),
      expectedDeliveryDate: new Date('2025-05-13T22:30:00Z'),
      validTimestamp: new Date('2025-05-01T10:04:00Z'),
      statusSequence: 4,
      progressStatusId: 75,
      statusV2: 'shipped',
      // Not the UTC days (11th, 13th): the days the ERP wrote.
      expectedShipDay: '2025-05-10',
      expectedDeliveryDay: '2025-05-14',
      additionalExplanation: 'Rest ships Friday',
      qualityProofURL: 'https://proofs.example/SO-9',
      lastOccurredAt: new Date('2025-05-01T10:04:00Z'),
    } satisfies OrderStatusState);
  });

  it("replaces v2's status fields with the next status, keeping issues, lines and contacts", () => {
    const before = stateAfter(
      asV2(statusChanged(1, { purchaseOrderNumber: 'PO-1', statusId: 60, statusV2: 'shipped', additionalExplanation: 'x' })),
      issueRecorded(2),
      linesRecorded(3, [line('1')]),
      contactsRecorded(4, [{ contactType: 'Order' }]),
    );
    const after = evolveOrderStatus(before, statusChanged(5, { statusId: 70 }));
    expect(after).not.toHaveProperty('statusV2');
    expect(after).not.toHaveProperty('additionalExplanation');
    expect(after).toMatchObject({ statusId: 70, statusSequence: 5, sequence: 5, issues: before.issues, lines: before.lines, contacts: before.contacts });
  });
});

describe('order status v2: events before any status', () => {
  it.each([
    ['IssueRecorded', issueRecorded(3)],
    ['SalesOrderLinesRecorded', linesRecorded(3, [line('1')])],
    ['OrderContactsRecorded', contactsRecorded(3, [{ contactType: 'Bill' }])],
  ] as const)('a %s creates the state without status fields or purchase order number', (_, event) => {
    const state = stateAfter(event);
    expect(state).toMatchObject({ clientId: 'C1', salesOrderNumber: 'SO-9', sequence: 3, lastOccurredAt: new Date('2025-05-01T10:03:00Z') });
    for (const field of ['statusId', 'open', 'validTimestamp', 'purchaseOrderNumber', 'statusSequence', 'progressStatusId']) {
      expect(state).not.toHaveProperty(field);
    }
  });

  it('a later status brings the status and keeps what came before', () => {
    const state = stateAfter(linesRecorded(1, [line('1')]), statusChanged(2));
    expect(state).toMatchObject({ statusId: 20, purchaseOrderNumber: 'PO-1', statusSequence: 2, sequence: 2, lines: [line('1')] });
  });
});

describe('order status v2: order details do not touch the status', () => {
  it('moves sequence and lastOccurredAt, never statusSequence or validTimestamp', () => {
    const state = stateAfter(statusChanged(1), issueRecorded(5));
    expect(state).toMatchObject({
      sequence: 5,
      statusSequence: 1,
      validTimestamp: new Date('2025-05-01T10:01:00Z'),
      lastOccurredAt: new Date('2025-05-01T10:05:00Z'),
    });
  });

  it.each([
    ['IssueRecorded', issueRecorded(5)],
    ['SalesOrderLinesRecorded', linesRecorded(5, [line('1')])],
    ['OrderContactsRecorded', contactsRecorded(5, [{ contactType: 'Bill' }])],
  ] as const)('a %s on a state folded before 2.0.0 (no statusSequence) names the status sequence it had', (_, event) => {
    const v1: OrderStatusState = { clientId: 'C1', salesOrderNumber: 'SO-9', sequence: 3, statusId: 20, open: true, validTimestamp: new Date('2025-05-01T10:03:00Z') };
    expect(evolveOrderStatus(deepFreeze(v1), event)).toMatchObject({ sequence: 5, statusSequence: 3 });
  });

  it('ignores shipment events, v2 or not, without advancing', () => {
    const state = stateAfter(statusChanged(1), issueRecorded(2));
    expect(evolveOrderStatus(state, asV2(locationRecorded(3, 1, { customerPickup: true })))).toBe(state);
    expect(evolveOrderStatus(state, asV2(packageShipped(4, 1, 1, { carrierService: 'Ground' })))).toBe(state);
  });
});

describe('order status v2: IssueRecorded', () => {
  it('records an issue with its dates as Date objects and urgency false unless given', () => {
    const state = stateAfter(statusChanged(1), issueRecorded(2, { issueId: 'ART-1', issueName: 'Logo', responseRequiredBy: '2025-05-06T17:00:00-04:00', productId: 'PC61' }));
    expect(state.issues).toStrictEqual([
      {
        issueId: 'ART-1',
        issueStatus: 'Open',
        issueCategory: 'artHold',
        issueName: 'Logo',
        urgentResponseRequired: false,
        responseRequiredBy: new Date('2025-05-06T21:00:00Z'),
        productId: 'PC61',
        source: 'erp',
        firstSequence: 2,
      },
    ]);
  });

  it('updates an issue in its place, replacing its fields', () => {
    const state = stateAfter(
      issueRecorded(1, { issueId: 'A', issueName: 'first' }),
      issueRecorded(2, { issueId: 'B' }),
      issueRecorded(3, { issueId: 'A', issueStatus: 'Pending', issueCategory: 'creditHold', urgentResponseRequired: true }),
    );
    expect(state.issues?.map((i) => [i.issueId, i.issueStatus, i.issueCategory, i.urgentResponseRequired, i.issueName, i.firstSequence])).toEqual([
      ['A', 'Pending', 'creditHold', true, undefined, 1],
      ['B', 'Open', 'artHold', false, undefined, 2],
    ]);
  });

  it('keeps the sequence at which an issue was first closed', () => {
    const state = stateAfter(issueRecorded(1, { issueStatus: 'Closed' }), issueRecorded(2, { issueStatus: 'Closed', issueName: 'again' }));
    expect(state.issues?.[0]).toMatchObject({ issueStatus: 'Closed', closedSequence: 1, issueName: 'again' });
    expect(stateAfter(issueRecorded(1, { issueStatus: 'Closed' }), issueRecorded(2)).issues?.[0]).not.toHaveProperty('closedSequence');
  });

  it('orders ERP and derived issues by the sequence each was first recorded', () => {
    const state = stateAfter(issueRecorded(1, { issueId: 'A' }), statusChanged(2, { statusId: 43 }), issueRecorded(3, { issueId: 'B' }), issueRecorded(4, { issueId: 'A', issueStatus: 'Closed' }));
    expect(state.issues?.map((i) => i.source + ':' + i.firstSequence)).toEqual(['erp:1', 'hold:2', 'erp:3']);
  });

  it("refuses an issueId in the derived issues' namespace", () => {
    expect(rejection(() => evolveOrderStatus(undefined, issueRecorded(1, { issueId: 'ossn-hold-1234' })))).toBe(
      'issueId "ossn-hold-1234" of sales order C1:SO-9 starts with "ossn-", kept for derived issues',
    );
    expect(stateAfter(issueRecorded(1, { issueId: 'OSSN-1' })).issues?.[0]?.issueId).toBe('OSSN-1');
  });

  describe('at most 100 ERP issues', () => {
    const hundred = (status: (i: number) => 'Open' | 'Pending' | 'Closed') =>
      Array.from({ length: 100 }, (_, i) => issueRecorded(i + 1, { issueId: `I-${i + 1}`, issueStatus: status(i + 1) }));

    it('refuses a 101st while all 100 are open, yet updates any of them', () => {
      const full = stateAfter(...hundred((i) => (i % 2 ? 'Open' : 'Pending')));
      expect(rejection(() => evolveOrderStatus(full, issueRecorded(101, { issueId: 'I-101' })))).toBe(
        'sales order C1:SO-9 has 100 ERP issues, none Closed: issue "I-101" refused',
      );
      expect(evolveOrderStatus(full, issueRecorded(101, { issueId: 'I-7', issueStatus: 'Closed' }))?.issues).toHaveLength(100);
    });

    it('makes room by dropping the ERP issue closed at the lowest sequence', () => {
      const full = stateAfter(
        ...hundred(() => 'Open'),
        issueRecorded(101, { issueId: 'I-50', issueStatus: 'Closed' }),
        issueRecorded(102, { issueId: 'I-3', issueStatus: 'Closed' }),
      );
      const state = evolveOrderStatus(full, issueRecorded(103, { issueId: 'NEW' })) as OrderStatusState;
      const ids = state.issues?.map((i) => i.issueId) ?? [];
      expect(ids).toHaveLength(100);
      expect(ids).not.toContain('I-50');
      expect(ids).toContain('I-3');
      expect(ids.at(-1)).toBe('NEW');
    });

    it('does not count derived issues', () => {
      const state = stateAfter(statusChanged(1, { statusId: 41 }), ...hundred((i) => (i === 1 ? 'Closed' : 'Open')).map((e) => ({ ...e, sequence: e.sequence + 1 })));
      expect(state.issues).toHaveLength(101);
      const next = evolveOrderStatus(state, issueRecorded(200, { issueId: 'NEW' }));
      expect(next?.issues?.filter((i) => i.source === 'erp').map((i) => i.issueId)).not.toContain('I-1');
      expect(next?.issues?.[0]?.source).toBe('hold');
    });
  });
});

describe('order status v2: SalesOrderLinesRecorded and OrderContactsRecorded', () => {
  it('replaces all lines with the latest event, in its order', () => {
    const full = {
      salesOrderLineNumber: '2',
      productId: 'MUG-11',
      partId: 'MUG-11-W',
      purchaseOrderLineNumber: '20',
      quantityOrdered: { value: 48, uom: 'BX' as const },
      quantityShipped: { value: 12, uom: 'BX' as const },
      status: 'inProduction' as const,
      issueCategory: 'backOrderHold' as const,
    };
    const state = stateAfter(linesRecorded(1, [line('1'), line('3')]), linesRecorded(2, [full, line('1', 'PC90')]));
    expect(state.lines).toStrictEqual([full, line('1', 'PC90')]);
    expect(stateAfter(linesRecorded(1, [line('1')]), linesRecorded(2, [])).lines).toEqual([]);
  });

  it('refuses lines that share a salesOrderLineNumber', () => {
    expect(rejection(() => evolveOrderStatus(undefined, linesRecorded(1, [line('1'), line('2'), line('1', 'other')])))).toBe(
      'salesOrderLineNumber "1" given twice in the lines of sales order C1:SO-9',
    );
  });

  it('replaces all contacts with the latest event, in its order', () => {
    const jo = { contactType: 'Expeditor' as const, attentionTo: 'Jo', email: 'jo@acme.example', country: 'US' };
    const state = stateAfter(contactsRecorded(1, [{ contactType: 'Sold' }]), contactsRecorded(2, [{ contactType: 'Art' }, jo]));
    expect(state.contacts).toStrictEqual([{ contactType: 'Art' }, jo]);
  });

  it('shares no object with the event', () => {
    const event = linesRecorded(1, [line('1')]);
    const state = stateAfter(event);
    expect(state.lines?.[0]).not.toBe(event.data.lines[0]);
    expect(state.lines?.[0]?.quantityOrdered).not.toBe(event.data.lines[0]?.quantityOrdered);
  });
});

describe('order status v2: duplicates and replays', () => {
  const stream: ErpEvent[] = [
    statusChanged(1, { purchaseOrderNumber: 'PO-1', statusId: 42 }),
    issueRecorded(2),
    linesRecorded(3, [line('1')]),
    contactsRecorded(4, [{ contactType: 'Order' }]),
    statusChanged(5, { purchaseOrderNumber: 'PO-1', statusId: 60 }),
  ];

  it.each(stream.map((e) => [e.type, e.sequence, e] as const))('a %s at or below the last sequence (%i) changes nothing', (_, __, event) => {
    const state = stateAfter(...stream);
    expect(evolveOrderStatus(state, event)).toBe(state);
    // Even with other content: the sequence decides.
    expect(evolveOrderStatus(state, { ...event, sequence: 5 } as ErpEvent)).toBe(state);
  });

  it('a refused event at a sequence already applied is a replay, not a refusal', () => {
    const state = stateAfter(...stream);
    expect(evolveOrderStatus(state, issueRecorded(5, { issueId: 'ossn-x' }))).toBe(state);
  });
});
