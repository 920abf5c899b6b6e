// GetOrderStatusDetailsResponse and GetOrderStatusTypesResponse: the views as content trees
// (../../../protocol/content-tree.ts: keys are the elements of the OSS 1.0.0 XSDs in their order,
// everything in one namespace), written by the one tree writer (../../../protocol/soap/tree-xml.ts)
// one purchase order at a time. ResponseToArray, additionalExplanation and errorMessage are never
// written.
import type { OrderStatusDetailView, OrderStatusView } from '../../../../../contracts/lookup-answers.js';
import { statusTypes } from '../../../../../contracts/status-types.js';
import type { AnswerChunks } from '../../../http/answer-chunks.js';
import type { Tree } from '../../../protocol/content-tree.js';
import { treeXmlWriter } from '../../../protocol/soap/tree-xml.js';
import { required } from '../content-values.js';
import { OSS_NS } from '../namespaces.js';

const { arrayXml, elementXml } = treeXmlWriter();

const detailTree = (d: OrderStatusDetailView): Tree => ({
  factoryOrderNumber: required(d.factoryOrderNumber, 'factoryOrderNumber'),
  statusID: required(d.statusID, 'statusID'),
  // An empty name is left out like an absent one (the XSD's statusName is optional).
  statusName: d.statusName || undefined,
  expectedShipDate: d.expectedShipDate,
  expectedDeliveryDate: d.expectedDeliveryDate,
  responseRequired: d.responseRequired,
  validTimestamp: required(d.validTimestamp, 'validTimestamp'),
});

/** One OrderStatus: written one at a time, so a 5,000-order answer is never one tree. */
export const orderStatusTree = (o: OrderStatusView): Tree => ({
  purchaseOrderNumber: required(o.purchaseOrderNumber, 'purchaseOrderNumber'),
  OrderStatusDetailArray: o.details.map(detailTree),
});

/**
 * Writes the Body's content. An empty result is an empty OrderStatusArray (service.md's decision). The
 * XSD wants at least one OrderStatus there and offers no valid empty form, since
 * OrderStatusArray itself is required.
 */
export function orderStatusDetailsPayload(orders: readonly OrderStatusView[], out: AnswerChunks): void {
  out.add(`<GetOrderStatusDetailsResponse xmlns="${OSS_NS}">`);
  if (orders.length === 0) out.add('<OrderStatusArray/>');
  else {
    out.add('<OrderStatusArray>');
    for (const order of orders) out.add(elementXml('OrderStatus', orderStatusTree(order)));
    out.add('</OrderStatusArray>');
  }
  out.add('</GetOrderStatusDetailsResponse>');
}

/** The status types' tree is the same for every request: written once. */
const statusTypesXml = `<GetOrderStatusTypesResponse xmlns="${OSS_NS}">${arrayXml(
  'StatusArray',
  statusTypes.map((s): Tree => ({ id: s.statusId, name: s.statusName })),
)}</GetOrderStatusTypesResponse>`;

export function orderStatusTypesPayload(out: AnswerChunks): void {
  out.add(statusTypesXml);
}
