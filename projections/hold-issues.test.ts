import { describe, expect, it } from 'vitest';
import type { ErpEvent } from '../contracts/erp-events.js';
import type { StatusId } from '../contracts/status-types.js';
import { asV2, issueRecorded, sampleEvent, statusChanged } from '../test/fixtures/sample-events.js';
import { deepFreeze } from '../test/support/deep-freeze.js';
import { holdIssueId } from './hold-issues.js';
import { evolveOrderStatus } from './order-status.js';
import type { IssueState, OrderStatusState } from './state.js';

// oss-osn-2.0.0.md §4.1 and §10.3: a hold status opens a derived issue that lives as long as the hold.

function stateAfter(...events: ErpEvent[]): OrderStatusState {
  const state = events.reduce<OrderStatusState | undefined>((s, e) => deepFreeze(evolveOrderStatus(s, e)), undefined);
  if (!state) throw new Error('no state');
  return state;
}

const issuesOf = (state: OrderStatusState): IssueState[] => state.issues ?? [];
const status = (sequence: number, statusId: StatusId, extra: object = {}) =>
  statusChanged(sequence, { purchaseOrderNumber: 'PO-1', statusId, ...extra });

describe('derived hold issues: ids', () => {
  it('is ossn-hold- and the first 20 hex of SHA-256 of client, sales order and sequence', () => {
    expect(holdIssueId('C1', 'SO-9', 1)).toBe('ossn-hold-16ca293e035050bf716d');
    expect(holdIssueId('C1', 'SO-9', 3)).toBe('ossn-hold-d36d720f907676bde170');
  });

  it('is the same over a rebuild, and another for another client', () => {
    const events = [status(1, 20), status(3, 42)];
    expect(issuesOf(stateAfter(...events))[0]?.issueId).toBe(issuesOf(stateAfter(...events))[0]?.issueId);
    const other = sampleEvent('SalesOrderStatusChanged', 3, { statusId: 42 }, { clientId: 'C2' });
    expect(issuesOf(stateAfter(other))[0]?.issueId).not.toBe(holdIssueId('C1', 'SO-9', 3));
  });
});

describe('derived hold issues: lifecycle', () => {
  it.each([
    [11, 'orderEntryHold', 'Order Entry Hold'],
    [40, 'generalHold', 'General Hold'],
    [41, 'creditHold', 'Credit Hold'],
    [42, 'proofHold', 'Proof Hold'],
    [43, 'artHold', 'Art Hold'],
    [44, 'backOrderHold', 'Back Order Hold'],
  ] as const)('entering hold %i opens a %s issue named %s', (statusId, issueCategory, issueName) => {
    expect(issuesOf(stateAfter(status(1, 20), status(2, statusId)))).toStrictEqual([
      {
        issueId: holdIssueId('C1', 'SO-9', 2),
        issueStatus: 'Open',
        issueCategory,
        issueName,
        urgentResponseRequired: false,
        source: 'hold',
        firstSequence: 2,
      },
    ]);
  });

  it('takes urgency from responseRequired and the description from additionalExplanation', () => {
    const [issue] = issuesOf(stateAfter(asV2(status(1, 41, { responseRequired: true, additionalExplanation: 'Credit limit exceeded' }))));
    expect(issue).toMatchObject({ urgentResponseRequired: true, issueDescription: 'Credit limit exceeded' });
  });

  it('keeps the progress status the order had reached; received when none', () => {
    expect(stateAfter(status(1, 41)).progressStatusId).toBeUndefined();
    const held = stateAfter(status(1, 20), status(2, 60), status(3, 44));
    expect(held).toMatchObject({ statusId: 44, progressStatusId: 60, open: true });
    expect(stateAfter(status(1, 20), status(2, 60), status(3, 44), status(4, 42)).progressStatusId).toBe(60);
    expect(stateAfter(status(1, 20), status(2, 44), status(3, 70)).progressStatusId).toBe(70);
  });

  it('updates the open issue when the same hold comes again, keeping its id and place', () => {
    const state = stateAfter(
      status(1, 42),
      issueRecorded(2, { issueId: 'ART-1' }),
      asV2(status(3, 42, { responseRequired: true, additionalExplanation: 'Proof sent again' })),
    );
    expect(issuesOf(state).map((i) => [i.issueId, i.issueStatus, i.urgentResponseRequired, i.issueDescription])).toEqual([
      [holdIssueId('C1', 'SO-9', 1), 'Open', true, 'Proof sent again'],
      ['ART-1', 'Open', false, undefined],
    ]);
  });

  it('drops a description the repeated hold no longer gives', () => {
    const state = stateAfter(asV2(status(1, 42, { additionalExplanation: 'Waiting' })), status(2, 42));
    expect(issuesOf(state)[0]).not.toHaveProperty('issueDescription');
  });

  it('closes the open issue on another hold, which opens its own', () => {
    const state = stateAfter(status(1, 20), status(2, 41), status(3, 43));
    expect(issuesOf(state).map((i) => [i.issueId, i.issueCategory, i.issueStatus, i.closedSequence])).toEqual([
      [holdIssueId('C1', 'SO-9', 2), 'creditHold', 'Closed', 3],
      [holdIssueId('C1', 'SO-9', 3), 'artHold', 'Open', undefined],
    ]);
  });

  it('closes the open issue on a status that is no hold, and keeps it as Closed', () => {
    const state = stateAfter(status(1, 11), status(2, 20), status(3, 60));
    expect(issuesOf(state)).toStrictEqual([
      {
        issueId: holdIssueId('C1', 'SO-9', 1),
        issueStatus: 'Closed',
        issueCategory: 'orderEntryHold',
        issueName: 'Order Entry Hold',
        urgentResponseRequired: false,
        source: 'hold',
        firstSequence: 1,
        closedSequence: 2,
      },
    ]);
  });

  it('opens a new issue when a hold comes back after it was left', () => {
    const ids = issuesOf(stateAfter(status(1, 40), status(2, 20), status(3, 40))).map((i) => [i.issueId, i.issueStatus]);
    expect(ids).toEqual([
      [holdIssueId('C1', 'SO-9', 1), 'Closed'],
      [holdIssueId('C1', 'SO-9', 3), 'Open'],
    ]);
  });

  it('has no issues on a stream without holds', () => {
    expect(stateAfter(status(1, 10), status(2, 20), status(3, 80))).not.toHaveProperty('issues');
  });

  it('keeps only the last 20 closed derived issues, and every ERP issue', () => {
    // Holds 40 and 41 alternate: each closes the previous and opens its own.
    const holds = Array.from({ length: 30 }, (_, i) => status(i + 2, i % 2 === 0 ? 40 : 41));
    const state = stateAfter(issueRecorded(1, { issueId: 'E-1', issueStatus: 'Closed' }), ...holds, status(32, 60));
    const derived = issuesOf(state).filter((i) => i.source === 'hold');
    expect(derived).toHaveLength(20);
    expect(derived.every((i) => i.issueStatus === 'Closed')).toBe(true);
    // The 20 closed last: those opened at sequences 12..31, in that order.
    expect(derived.map((i) => i.firstSequence)).toEqual(Array.from({ length: 20 }, (_, i) => i + 12));
    expect(issuesOf(state)[0]?.issueId).toBe('E-1');
  });
});
