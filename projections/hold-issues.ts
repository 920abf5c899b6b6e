import { createHash } from 'node:crypto';
import type { ErpEventOf } from '../contracts/erp-events.js';
import { statusName, type StatusId } from '../contracts/status-types.js';
import { isOpenIssue, type IssueCategory } from '../contracts/v2-vocabulary.js';
import { compact } from './compact.js';
import type { IssueState } from './state.js';

// oss-osn-2.0.0.md §4.1: 2.0.0 has no hold status, so a hold statusId keeps the order's progress
// status and opens an issue of the hold's category instead. That issue lives as long as the hold:
// the same hold again updates it, another hold or a status that is no hold closes it.

const holdCategories = new Map<StatusId, IssueCategory>([
  [11, 'orderEntryHold'],
  [40, 'generalHold'],
  [41, 'creditHold'],
  [42, 'proofHold'],
  [43, 'artHold'],
  [44, 'backOrderHold'],
]);

/** The issue category of a hold statusId; undefined for a status that is no hold. */
export const holdCategory = (statusId: StatusId): IssueCategory | undefined => holdCategories.get(statusId);

/** Derived issue ids start so; the ERP's may not (the contract's IssueRecorded is refused with one). */
export const derivedIssuePrefix = 'ossn-';

/** Closed derived issues kept per sales order (§10.3): a v1 stream of holds never fills the model. */
export const keptClosedHoldIssues = 20;

/** Stable over rebuilds: derived from where the hold began, not from when it was projected. */
export function holdIssueId(clientId: string, salesOrderNumber: string, sequence: number): string {
  const hash = createHash('sha256').update(`${clientId}:${salesOrderNumber}:${sequence}`).digest('hex');
  return `${derivedIssuePrefix}hold-${hash.slice(0, 20)}`;
}

const isOpenHoldIssue = (issue: IssueState): boolean => issue.source === 'hold' && isOpenIssue(issue.issueStatus);

/** The hold's own fields, from the status event that entered or repeated it. */
function holdFields(event: ErpEventOf<'SalesOrderStatusChanged'>) {
  return {
    issueName: statusName(event.data.statusId),
    urgentResponseRequired: event.data.responseRequired ?? false,
    issueDescription: event.data.additionalExplanation,
  };
}

/** Keeps the last `keptClosedHoldIssues` closed derived issues (by the sequence that closed them). */
function withoutOldClosedHolds(issues: IssueState[]): IssueState[] {
  const closed = issues.filter((i) => i.source === 'hold' && !isOpenIssue(i.issueStatus));
  if (closed.length <= keptClosedHoldIssues) return issues;
  const dropped = new Set(
    closed
      .sort((a, b) => (a.closedSequence ?? 0) - (b.closedSequence ?? 0))
      .slice(0, closed.length - keptClosedHoldIssues),
  );
  return issues.filter((i) => !dropped.has(i));
}

/**
 * The issues of a sales order after a status event: the derived hold issue opened, updated or
 * closed as the status says. Returns `issues` itself when the status concerns no hold, before or now.
 */
export function withHoldIssue(issues: IssueState[] | undefined, event: ErpEventOf<'SalesOrderStatusChanged'>): IssueState[] | undefined {
  const category = holdCategory(event.data.statusId);
  const open = issues?.find(isOpenHoldIssue);
  if (!open && !category) return issues;
  const current = issues ?? [];

  if (open && open.issueCategory === category) {
    const updated: IssueState = compact({ ...open, ...holdFields(event) });
    return current.map((i) => (i === open ? updated : i));
  }
  const closed = current.map((i): IssueState => (i === open ? { ...i, issueStatus: 'Closed', closedSequence: event.sequence } : i));
  if (!category) return withoutOldClosedHolds(closed);
  const opened: IssueState = compact({
    issueId: holdIssueId(event.clientId, event.salesOrderNumber, event.sequence),
    issueStatus: 'Open',
    issueCategory: category,
    ...holdFields(event),
    source: 'hold',
    firstSequence: event.sequence,
  });
  // Sequences rise, so a new issue goes last: issues stay in the order they were first recorded.
  return withoutOldClosedHolds([...closed, opened]);
}
