import { eventKey, type ErpEventOf } from '../contracts/erp-events.js';
import { isOpenIssue } from '../contracts/v2-vocabulary.js';
import { compact } from './compact.js';
import { EventRejectedError } from './event-rejected.js';
import { derivedIssuePrefix } from './hold-issues.js';
import type { IssueState } from './state.js';

// oss-osn-2.0.0.md §5 and §10.3-4: IssueRecorded upserts one ERP issue of a sales order. An update
// keeps the issue's place; at most 100 ERP issues are kept, room made by dropping the one closed
// earliest, never an open one.

export const maxErpIssues = 100;

const optionalDate = (value: string | undefined): Date | undefined => (value === undefined ? undefined : new Date(value));

/**
 * The issues of a sales order with the event's issue recorded. Throws EventRejectedError for an
 * issueId of the derived issues' namespace, and for a new issue when all kept ERP issues are open.
 */
export function withErpIssue(issues: IssueState[] | undefined, event: ErpEventOf<'IssueRecorded'>): IssueState[] {
  const { data } = event;
  const salesOrder = eventKey(event.clientId, event.salesOrderNumber);
  if (data.issueId.startsWith(derivedIssuePrefix)) {
    throw new EventRejectedError(`issueId ${JSON.stringify(data.issueId)} of sales order ${salesOrder} starts with "${derivedIssuePrefix}", kept for derived issues`);
  }
  const current = issues ?? [];
  const previous = current.find((i) => i.source === 'erp' && i.issueId === data.issueId);
  const closed = !isOpenIssue(data.issueStatus);
  const issue: IssueState = compact({
    issueId: data.issueId,
    issueStatus: data.issueStatus,
    issueCategory: data.issueCategory,
    issueName: data.issueName,
    urgentResponseRequired: data.urgentResponseRequired ?? false,
    issueDescription: data.issueDescription,
    responseRequiredBy: optionalDate(data.responseRequiredBy),
    issueResolutionURL: data.issueResolutionURL,
    productId: data.productId,
    partId: data.partId,
    source: 'erp',
    firstSequence: previous?.firstSequence ?? event.sequence,
    // Closed again: it still counts as closed when it first was.
    closedSequence: closed ? (previous?.closedSequence ?? event.sequence) : undefined,
  });
  if (previous) return current.map((i) => (i === previous ? issue : i));

  const erpIssues = current.filter((i) => i.source === 'erp');
  if (erpIssues.length < maxErpIssues) return [...current, issue];
  const closedFirst = erpIssues
    .filter((i) => !isOpenIssue(i.issueStatus))
    .reduce<IssueState | undefined>((first, i) => (first === undefined || (i.closedSequence ?? 0) < (first.closedSequence ?? 0) ? i : first), undefined);
  if (!closedFirst) {
    throw new EventRejectedError(`sales order ${salesOrder} has ${maxErpIssues} ERP issues, none Closed: issue ${JSON.stringify(data.issueId)} refused`);
  }
  return [...current.filter((i) => i !== closedFirst), issue];
}
