import { describe, expect, it } from 'vitest';
import type { IssueCategory, IssueDetailType, IssueStatus } from '../../contracts/v2-vocabulary.js';
import type { IssueState } from '../state.js';
import { detailIssueCategory, issuesAsked } from './issues-v2.js';

let sequence = 0;
const issue = (issueId: string, source: IssueState['source'], issueCategory: IssueCategory, issueStatus: IssueStatus): IssueState => ({
  issueId,
  source,
  issueCategory,
  issueStatus,
  urgentResponseRequired: false,
  firstSequence: ++sequence,
});

const holdOpen = issue('hold-1', 'hold', 'generalHold', 'Open');
const holdClosed = issue('hold-2', 'hold', 'generalHold', 'Closed');
const erpOpen = issue('erp-1', 'erp', 'generalHold', 'Pending');
const erpClosed = issue('erp-2', 'erp', 'orderEntryHold', 'Closed');
const erpOtherOpen = issue('erp-3', 'erp', 'orderEntryHold', 'Open');

describe('the issues a 2.0.0 answer lists (oss-osn-2.0.0.md §10.2)', () => {
  const table: [string, IssueState[], IssueDetailType, string[]][] = [
    ['none asked', [holdOpen, erpOpen], 'noIssues', []],
    ['an open hold issue alone', [holdOpen], 'openIssues', ['hold-1']],
    ['an open hold issue left out while an open ERP issue of its category exists', [holdOpen, erpOpen], 'allIssues', ['erp-1']],
    ['an open hold issue kept beside an open ERP issue of another category', [holdOpen, erpOtherOpen], 'allIssues', ['hold-1', 'erp-3']],
    ['an open hold issue kept when the ERP issue of its category is closed', [holdOpen, erpClosed], 'allIssues', ['hold-1', 'erp-2']],
    ['a closed hold issue always listed, with all issues', [holdClosed, erpOpen], 'allIssues', ['hold-2', 'erp-1']],
    ['closed ones left out, with open issues', [holdClosed, erpOpen, erpClosed], 'openIssues', ['erp-1']],
  ];
  it.each(table)('%s', (_, issues, detail, listed) => {
    expect(issuesAsked(issues, detail).map((i) => i.issueId)).toEqual(listed);
  });

  it('answers without the bookkeeping of the read model', () => {
    expect(issuesAsked([erpOpen], 'allIssues')).toEqual([{ issueId: 'erp-1', issueStatus: 'Pending', issueCategory: 'generalHold', urgentResponseRequired: false }]);
  });
});

describe("a 2.0.0 detail's issue category (oss-osn-2.0.0.md §4.2)", () => {
  const table: [string, IssueState[], IssueCategory | undefined][] = [
    ['none without an open issue', [holdClosed, erpClosed], undefined],
    ['the open hold issue first', [erpOtherOpen, holdOpen], 'generalHold'],
    ['else the first open ERP issue', [erpClosed, erpOtherOpen, erpOpen], 'orderEntryHold'],
  ];
  it.each(table)('%s', (_, issues, category) => {
    expect(detailIssueCategory(issues)).toBe(category);
  });
});
