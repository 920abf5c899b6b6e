// GetOrderStatusDetailsResponse and GetOrderStatusTypesResponse, element order as in the OSS 1.0.0
// XSDs (everything in one namespace), written as XML text straight from the views (bench/soap-builders.ts
// compares this with the XML libraries). ResponseToArray, additionalExplanation and errorMessage
// are never emitted.
import type { OrderStatusDetailView, OrderStatusView } from '../../../../../contracts/lookup-answers.js';
import { OSS_NS } from '../namespaces.js';
import { statusTypes } from '../../../../../contracts/status-types.js';
import { element, formatBoolean, formatDateTime, formatDecimal, textElement } from '../../../protocol/soap/xml-text.js';
import type { AnswerChunks } from '../../../http/answer-chunks.js';

function detailXml(detail: OrderStatusDetailView): string {
  let xml = textElement('factoryOrderNumber', detail.factoryOrderNumber) + element('statusID', formatDecimal(detail.statusID));
  if (detail.statusName) xml += textElement('statusName', detail.statusName);
  if (detail.expectedShipDate) xml += element('expectedShipDate', formatDateTime(detail.expectedShipDate));
  if (detail.expectedDeliveryDate) xml += element('expectedDeliveryDate', formatDateTime(detail.expectedDeliveryDate));
  if (detail.responseRequired !== undefined) xml += element('responseRequired', formatBoolean(detail.responseRequired));
  return `<OrderStatusDetail>${xml}${element('validTimestamp', formatDateTime(detail.validTimestamp))}</OrderStatusDetail>`;
}

function orderXml(order: OrderStatusView): string {
  let details = '';
  for (const detail of order.details) details += detailXml(detail);
  return `<OrderStatus>${textElement('purchaseOrderNumber', order.purchaseOrderNumber)}${element('OrderStatusDetailArray', details)}</OrderStatus>`;
}

/**
 * Writes the Body's content. An empty result is an empty OrderStatusArray (service.md's decision). The
 * XSD wants at least one OrderStatus there and offers no valid empty form, since
 * OrderStatusArray itself is required.
 */
export function orderStatusDetailsPayload(orders: OrderStatusView[], out: AnswerChunks): void {
  out.add(`<GetOrderStatusDetailsResponse xmlns="${OSS_NS}">`);
  if (orders.length === 0) out.add('<OrderStatusArray/>');
  else {
    out.add('<OrderStatusArray>');
    for (const order of orders) out.add(orderXml(order));
    out.add('</OrderStatusArray>');
  }
  out.add('</GetOrderStatusDetailsResponse>');
}

const statusTypesXml = `<GetOrderStatusTypesResponse xmlns="${OSS_NS}">${element(
  'StatusArray',
  statusTypes.map((s) => `<Status>${element('id', String(s.statusId))}${textElement('name', s.statusName)}</Status>`).join(''),
)}</GetOrderStatusTypesResponse>`;

export function orderStatusTypesPayload(out: AnswerChunks): void {
  out.add(statusTypesXml);
}
