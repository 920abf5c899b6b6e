// The 2.0.0 SOAP operations of each endpoint, chosen by the local name of the Body's first element:
// each reads its request (../read-request.ts), is answered (../answers.ts) and writes its response
// element; each also writes its response element around service messages alone (refusals, 999).
import type { BodyContent, Payload } from '../../../protocol/soap/envelope.js';
import type { XmlElement } from '../../../protocol/soap/parse-envelope.js';
import { soapSource } from '../../../v2-core/soap-source.js';
import { issueAnswer, orderStatusAnswer, serviceMethodsAnswer, shipmentAnswer, type AnswerContext } from '../../../v2-core/answers.js';
import type { Degraded } from '../../../v2-core/fitting.js';
import { shipmentNotificationV2PayloadAsRead } from '../osn/shipment-notification-answer.js';
import { readIssueRequest, readOrderStatusRequest, readServiceMethodsRequest, readShipmentRequest } from '../../../v2-core/read-request.js';
import { messages, type ServiceMessage } from '../../../v2-core/service-messages.js';
import { issuePayload, orderStatusPayload, osnMessages, ossMessages, serviceMethodsPayload } from './responses.js';

export interface SoapV2Context extends AnswerContext {
  degraded: Degraded;
}

export interface SoapV2Operation {
  /** As the request metrics name it. */
  name: string;
  /** What writes the answer's Body content (the shipments answer as it is read). */
  run(request: XmlElement, context: SoapV2Context): Promise<BodyContent>;
  /** The response element holding these messages and no data. */
  messagesOnly(list: readonly ServiceMessage[]): Payload;
}

const getOrderStatus: SoapV2Operation = {
  name: 'v2/getOrderStatus',
  async run(request, context) {
    const answer = await orderStatusAnswer(readOrderStatusRequest(soapSource(request)), context);
    return 'found' in answer ? orderStatusPayload(answer.found, context.degraded) : this.messagesOnly([messages.notFound(answer.notFound)]);
  },
  messagesOnly: (list) => ossMessages('GetOrderStatusResponse', list),
};

const getIssue: SoapV2Operation = {
  name: 'v2/getIssue',
  async run(request, context) {
    const answer = await issueAnswer(readIssueRequest(soapSource(request)), context);
    return 'found' in answer ? issuePayload(answer.found) : this.messagesOnly([messages.notFound(answer.notFound)]);
  },
  messagesOnly: (list) => ossMessages('GetIssueResponse', list),
};

const getServiceMethods: SoapV2Operation = {
  name: 'v2/getServiceMethods',
  async run(request, context) {
    await serviceMethodsAnswer(readServiceMethodsRequest(soapSource(request)), context);
    return serviceMethodsPayload;
  },
  messagesOnly: (list) => ossMessages('GetServiceMethodsResponse', list),
};

const getOrderShipmentNotification: SoapV2Operation = {
  name: 'v2/getOrderShipmentNotification',
  async run(request, context) {
    const answer = await shipmentAnswer(readShipmentRequest(soapSource(request)), context);
    return 'found' in answer ? { streamed: shipmentNotificationV2PayloadAsRead(answer.found, context.degraded) } : this.messagesOnly([messages.notFound(answer.notFound)]);
  },
  messagesOnly: osnMessages,
};

export type SoapV2Operations = ReadonlyMap<string, SoapV2Operation>;

export const ORDER_STATUS_V2_OPERATIONS: SoapV2Operations = new Map([
  ['GetOrderStatusRequest', getOrderStatus],
  ['GetIssueRequest', getIssue],
  ['GetServiceMethodsRequest', getServiceMethods],
]);

export const SHIPMENT_NOTIFICATION_V2_OPERATIONS: SoapV2Operations = new Map([['GetOrderShipmentNotificationRequest', getOrderShipmentNotification]]);
