// The OSS 2.0.0 answers' content (oss-osn-2.0.0.md §4.2, §7) from the 2.0.0 views, in the order of
// SharedObjectsOrderStatusV2.xsd: GetOrderStatusResponse, GetIssueResponse, GetServiceMethodsResponse.
// Arrays only with at least one item; contacts fitted to the XSD (../fitting.ts). Never written:
// auditURL, ResolutionArray, issueBlockingStatus, Issue/ContactArray.
import type { CappedAnswer, ContactView, IssueView, OrderStatusDetailV2View, OrderStatusV2View, ProductView, Quantity } from '../../../../../contracts/lookup-answers-v2.js';
import type { AnswerChunks } from '../../../http/answer-chunks.js';
import type { Tree } from '../../../protocol/content-tree.js';
import { fitContact, type Degraded } from '../../../v2-core/fitting.js';
import { writeJsonAnswer } from '../json/answer-body.js';
import { capMessages } from '../../../v2-core/service-messages.js';

/** An array of at least one item, else absent (every XArray of the XSDs wants one). */
const some = <T>(items: readonly T[] | undefined, item: (value: T) => Tree): Tree[] | undefined =>
  items && items.length > 0 ? items.map(item) : undefined;

function contactTree(given: ContactView, degraded: Degraded): Tree {
  const c = fitContact(given, degraded);
  return {
    accountName: c.accountName,
    accountNumber: c.accountNumber,
    contactType: c.contactType,
    ContactDetails: {
      attentionTo: c.attentionTo,
      companyName: c.companyName,
      address1: c.address1,
      address2: c.address2,
      address3: c.address3,
      city: c.city,
      region: c.region,
      postalCode: c.postalCode,
      country: c.country,
      email: c.email,
      phone: c.phone,
      comments: c.comments,
    },
  };
}

const quantityTree = (q: Quantity | undefined): Tree | undefined => q && { value: q.value, uom: q.uom };

const productTree = (p: ProductView): Tree => ({
  productId: p.productId,
  partId: p.partId,
  salesOrderLineNumber: p.salesOrderLineNumber,
  purchaseOrderLineNumber: p.purchaseOrderLineNumber,
  QuantityOrdered: quantityTree(p.quantityOrdered),
  QuantityShipped: quantityTree(p.quantityShipped),
  issueCategory: p.issueCategory,
  status: p.status,
});

export const issueTree = (i: IssueView): Tree => ({
  issueId: i.issueId,
  issueStatus: i.issueStatus,
  issueCategory: i.issueCategory,
  issueName: i.issueName,
  urgentResponseRequired: i.urgentResponseRequired,
  issueDescription: i.issueDescription,
  responseRequiredBy: i.responseRequiredBy,
  issueResolutionURL: i.issueResolutionURL,
  productId: i.productId,
  partId: i.partId,
});

function detailTree(d: OrderStatusDetailV2View, degraded: Degraded): Tree {
  return {
    salesOrderNumber: d.salesOrderNumber,
    status: d.status,
    issueCategory: d.issueCategory,
    expectedShipDate: d.expectedShipDate,
    expectedDeliveryDate: d.expectedDeliveryDate,
    additionalExplanation: d.additionalExplanation,
    qualityProofURL: d.qualityProofURL,
    OrderContactArray: some(d.contacts, (c) => contactTree(c, degraded)),
    ProductArray: some(d.products, productTree),
    IssueArray: some(d.issues, issueTree),
    validTimestamp: d.validTimestamp,
  };
}

/** One OrderStatus: written one at a time, so a 5,000-order answer is never one tree. */
export const orderStatusTree = (o: OrderStatusV2View, degraded: Degraded): Tree => ({
  purchaseOrderNumber: o.purchaseOrderNumber,
  OrderStatusDetailArray: o.details.map((d) => detailTree(d, degraded)),
});

/** The JSON v2 twin's body of getOrderStatus, written order by order as the SOAP answer is (../soap/responses.ts). */
export function orderStatusJson(answer: CappedAnswer<OrderStatusV2View>, degraded: Degraded): (out: AnswerChunks) => void {
  return (out) => writeJsonAnswer(out, 'OrderStatusArray', orderStatusTrees(answer.orders, degraded), capMessages(answer));
}

/** The JSON v2 twin's body of getIssue: at least one issue (none is a 301). */
export function issuesJson(issues: readonly IssueView[]): (out: AnswerChunks) => void {
  return (out) => writeJsonAnswer(out, 'IssueArray', issues.map(issueTree), []);
}

function* orderStatusTrees(orders: readonly OrderStatusV2View[], degraded: Degraded): Generator<Tree> {
  for (const order of orders) yield orderStatusTree(order, degraded);
}
