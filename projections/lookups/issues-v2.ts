import type { IssueView } from '../../contracts/lookup-answers-v2.js';
import { isOpenIssue, type IssueCategory, type IssueDetailType } from '../../contracts/v2-vocabulary.js';
import type { IssueState } from '../state.js';
import { picked } from '../v1-fields.js';

// Which issues a 2.0.0 answer lists, and the category a detail carries (oss-osn-2.0.0.md §4.2, §10.2).

const issueViewFields = [
  'issueId',
  'issueStatus',
  'issueCategory',
  'issueName',
  'urgentResponseRequired',
  'issueDescription',
  'responseRequiredBy',
  'issueResolutionURL',
  'productId',
  'partId',
] as const satisfies readonly (keyof IssueView)[];

/** An issue as answered, without the read model's bookkeeping. */
export const toIssueView = (issue: IssueState): IssueView => picked(issue, issueViewFields);

const open = (issue: IssueState) => isOpenIssue(issue.issueStatus);

/**
 * §10.2: the issues an IssueArray may list, in the order kept: an open derived hold issue is left
 * out while an open ERP issue of its category exists (closed derived ones are always listed).
 */
export function listedIssues(issues: readonly IssueState[]): IssueState[] {
  const openErpCategories = new Set(issues.filter((i) => i.source === 'erp' && open(i)).map((i) => i.issueCategory));
  return issues.filter((i) => !(i.source === 'hold' && open(i) && openErpCategories.has(i.issueCategory)));
}

/** §4.2: the open derived hold's category, else the first open ERP issue's, whatever issues are asked for. */
export function detailIssueCategory(issues: readonly IssueState[]): IssueCategory | undefined {
  return (issues.find((i) => i.source === 'hold' && open(i)) ?? issues.find((i) => i.source === 'erp' && open(i)))?.issueCategory;
}

export function issuesAsked(issues: readonly IssueState[], detail: IssueDetailType): IssueView[] {
  if (detail === 'noIssues') return [];
  const listed = listedIssues(issues);
  return (detail === 'openIssues' ? listed.filter(open) : listed).map(toIssueView);
}
