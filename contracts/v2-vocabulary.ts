// The word lists PromoStandards 2.0.0 and ERP contract v2 share (oss-osn-2.0.0.md §4, §5), spelt as
// the official 2.0.0 XSDs spell them (SharedObjectsOrderStatusV2.xsd, SharedOSNObjects.xsd): the
// contract, the projections and the answers read them from here, so they cannot disagree.

/** statusType: the 2.0.0 status words. */
export const statusWords = [
  'received',
  'confirmed',
  'preproduction',
  'inProduction',
  'inStorage',
  'partiallyShipped',
  'shipped',
  'complete',
  'canceled',
] as const;
export type StatusWord = (typeof statusWords)[number];

/** issueCategoryType. */
export const issueCategories = [
  'orderEntryHold',
  'generalHold',
  'creditHold',
  'proofHold',
  'artHold',
  'backOrderHold',
  'shippingHold',
  'customerSuppliedItemHold',
] as const;
export type IssueCategory = (typeof issueCategories)[number];

/** issueStatusType; "open" means Open or Pending. */
export const issueStatuses = ['Pending', 'Open', 'Closed'] as const;
export type IssueStatus = (typeof issueStatuses)[number];

/** contactTypeType. */
export const contactTypes = ['Art', 'Bill', 'Expeditor', 'Order', 'Sales', 'Sold'] as const;
export type ContactType = (typeof contactTypes)[number];

/** quantityUomType (the same list in OSS and OSN 2.0.0). */
export const quantityUoms = ['BX', 'CA', 'DZ', 'EA', 'KT', 'PK', 'PR', 'RL', 'SL', 'ST', 'TH'] as const;
export type QuantityUom = (typeof quantityUoms)[number];

/** preProductionProofType. */
export const preProductionProofs = ['Yes', 'No', 'Unknown'] as const;
export type PreProductionProof = (typeof preProductionProofs)[number];

/** returnIssueDetailTypeType. */
export const issueDetailTypes = ['noIssues', 'openIssues', 'allIssues'] as const;
export type IssueDetailType = (typeof issueDetailTypes)[number];

/** queryTypeType of GetOrderStatusRequest. */
export const orderStatusQueryTypes = ['poSearch', 'soSearch', 'lastUpdate', 'allOpen', 'allOpenIssues', 'transactionId'] as const;
export type OrderStatusQueryType = (typeof orderStatusQueryTypes)[number];

/** An issue is open while Open or Pending. */
export const isOpenIssue = (status: IssueStatus): boolean => status !== 'Closed';
