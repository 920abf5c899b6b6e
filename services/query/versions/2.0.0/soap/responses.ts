// The SOAP Body content of the 2.0.0 answers: each response element in its service namespace (M),
// its content in SharedObjects (S) by default-namespace declarations, and the service messages
// where each XSD puts them - OSS S:ServiceMessageArray, OSN M:ServiceMessageArray with S items.
import type { CappedAnswer, IssueView, OrderStatusV2View } from '../../../../../contracts/lookup-answers-v2.js';
import type { AnswerChunks } from '../../../http/answer-chunks.js';
import type { Payload } from '../../../protocol/soap/envelope.js';
import type { Degraded } from '../../../v2-core/fitting.js';
import { OSN_V2_NS, OSN_V2_SHARED_NS, OSS_V2_NS, OSS_V2_SHARED_NS } from '../namespaces.js';
import { issueTree, orderStatusTree } from '../oss/order-status-tree.js';
import { capMessages, type ServiceMessage } from '../../../v2-core/service-messages.js';
import type { Tree } from '../../../protocol/content-tree.js';
import { treeXmlWriter } from '../../../protocol/soap/tree-xml.js';

/** The item elements of the 2.0.0 arrays not named by their array less "Array". */
const { arrayXml, treeXml } = treeXmlWriter({ itemNames: { OrderContactArray: 'Contact', ServiceMethodArray: 'serviceMethod' } });

export type OssResponse = 'GetOrderStatusResponse' | 'GetIssueResponse' | 'GetServiceMethodsResponse';

const messageTree = (m: ServiceMessage): Tree => ({ code: m.code, description: m.description, severity: m.severity });

const IN_OSS_SHARED = ` xmlns="${OSS_V2_SHARED_NS}"`;

/** An OSS response element: `content` writes its data array (in S), then the messages follow (in S). */
function ossResponse(name: OssResponse, list: readonly ServiceMessage[], content?: (out: AnswerChunks) => void): Payload {
  return (out) => {
    out.add(`<${name} xmlns="${OSS_V2_NS}">`);
    content?.(out);
    if (list.length > 0) out.add(arrayXml('ServiceMessageArray', list.map(messageTree), IN_OSS_SHARED));
    out.add(`</${name}>`);
  };
}

/** An OSS answer of service messages alone (refusals, 301, 999). */
export const ossMessages = (name: OssResponse, list: readonly ServiceMessage[]): Payload => ossResponse(name, list);

/** GetOrderStatusResponse: the orders (none: an empty element), the 200 Warning at the cap. */
export function orderStatusPayload(answer: CappedAnswer<OrderStatusV2View>, degraded: Degraded): Payload {
  return ossResponse('GetOrderStatusResponse', capMessages(answer), (out) => {
    if (answer.orders.length === 0) return;
    out.add(`<OrderStatusArray${IN_OSS_SHARED}>`);
    for (const order of answer.orders) out.add(`<OrderStatus>${treeXml(orderStatusTree(order, degraded))}</OrderStatus>`);
    out.add('</OrderStatusArray>');
  });
}

/** GetIssueResponse of at least one issue (none is a 301). */
export function issuePayload(issues: readonly IssueView[]): Payload {
  return ossResponse('GetIssueResponse', [], (out) => out.add(arrayXml('IssueArray', issues.map(issueTree), IN_OSS_SHARED)));
}

/** The operations of OSS 2.0.0's getServiceMethods, as it answers them. */
const SERVICE_METHODS = ['getOrderStatus', 'getIssue', 'getServiceMethods'] as const;

export const serviceMethodsPayload: Payload = ossResponse('GetServiceMethodsResponse', [], (out) =>
  out.add(arrayXml('ServiceMethodArray', [...SERVICE_METHODS], IN_OSS_SHARED)),
);

/** An OSN answer of service messages alone: M:ServiceMessageArray holding S:ServiceMessage. */
export function osnMessages(list: readonly ServiceMessage[]): Payload {
  const items = list.map((m) => `<ServiceMessage xmlns="${OSN_V2_SHARED_NS}">${treeXml(messageTree(m))}</ServiceMessage>`).join('');
  return (out) => out.add(`<GetOrderShipmentNotificationResponse xmlns="${OSN_V2_NS}"><ServiceMessageArray>${items}</ServiceMessageArray></GetOrderShipmentNotificationResponse>`);
}
