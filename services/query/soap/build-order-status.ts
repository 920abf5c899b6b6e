// GetOrderStatusDetailsResponse and GetOrderStatusTypesResponse, element order as in the OSS 1.0.0
// XSDs (everything in one namespace). ResponseToArray, additionalExplanation and errorMessage are
// never emitted.
import type { OrderStatusDetailView, OrderStatusView } from '../views.js';
import { OSS_NS } from './namespaces.js';
import { statusTypes } from '../../../contracts/status-types.js';
import type { XmlNode } from './xml-tree.js';
import { formatBoolean, formatDateTime, formatDecimal } from './xml-text.js';

function detailNode(detail: OrderStatusDetailView): XmlNode {
  const node: XmlNode = { factoryOrderNumber: detail.factoryOrderNumber, statusID: formatDecimal(detail.statusID) };
  if (detail.statusName) node['statusName'] = detail.statusName;
  if (detail.expectedShipDate) node['expectedShipDate'] = formatDateTime(detail.expectedShipDate);
  if (detail.expectedDeliveryDate) node['expectedDeliveryDate'] = formatDateTime(detail.expectedDeliveryDate);
  if (detail.responseRequired !== undefined) node['responseRequired'] = formatBoolean(detail.responseRequired);
  node['validTimestamp'] = formatDateTime(detail.validTimestamp);
  return node;
}

/**
 * An empty result is an empty OrderStatusArray (service.md's decision). The XSD wants at least one
 * OrderStatus there and offers no valid empty form, since OrderStatusArray itself is required.
 */
export function orderStatusDetailsPayload(orders: OrderStatusView[]): XmlNode {
  const array: XmlNode =
    orders.length === 0
      ? {}
      : {
          OrderStatus: orders.map((order) => ({
            purchaseOrderNumber: order.purchaseOrderNumber,
            OrderStatusDetailArray: { OrderStatusDetail: order.details.map(detailNode) },
          })),
        };
  return { GetOrderStatusDetailsResponse: { '@xmlns': OSS_NS, OrderStatusArray: array } };
}

export function orderStatusTypesPayload(): XmlNode {
  return {
    GetOrderStatusTypesResponse: {
      '@xmlns': OSS_NS,
      StatusArray: { Status: statusTypes.map((s) => ({ id: String(s.statusId), name: s.statusName })) },
    },
  };
}
