// The OSN 2.1.0 SOAP operations (docs/design/osn-2.1.0.md §1), chosen by the local name of the
// Body's first element: 2.0.0's requests read with 2.1.0's rules (wsVersion 2.1.0, a bare date in
// the supplier's time zone) and answered by 2.0.0's steps, 130 where 2.0.0 answers 301;
// getServiceMethods; and sendAdvanceShipmentNotification, which ossn sends and does not receive.
import type { BodyContent, Payload } from '../../../protocol/soap/envelope.js';
import type { XmlElement } from '../../../protocol/soap/parse-envelope.js';
import { authorize, shipmentAnswer } from '../../../v2-core/answers.js';
import { shipmentNotificationPayloadAsRead } from '../../../v2-core/osn/notification-answer.js';
import { readServiceMethodsRequest, readShipmentRequest, type RequestRules } from '../../../v2-core/read-request.js';
import { messages, ServiceMessageError, type ServiceMessage } from '../../../v2-core/service-messages.js';
import { soapSource } from '../../../v2-core/soap-source.js';
import type { AnswerContext } from '../../../v2-core/answers.js';
import type { Degraded } from '../../../v2-core/fitting.js';
import { OSN_V21_NS } from '../namespaces.js';
import { IN_SHARED, messagesXml, OSN_2_1_0_WRITING, sharedXml } from '../osn/notification-xml.js';

export const WS_VERSION_2_1_0 = '2.1.0';

export interface SoapV21Context extends AnswerContext {
  degraded: Degraded;
  /** The instant a bare date names: its start in the supplier's time zone. */
  startOfDay(date: string): Date | undefined;
  /** Whether the credential has a push subscription: getServiceMethods then lists sendAdvanceShipmentNotification. */
  pushSubscribed(credentialId: string): Promise<boolean>;
}

export interface SoapV21Operation {
  /** As the request metrics name it. */
  name: string;
  run(request: XmlElement, context: SoapV21Context): Promise<BodyContent>;
  /** The response element holding these messages and no data. */
  messagesOnly(list: readonly ServiceMessage[]): Payload;
}

const rules = (context: SoapV21Context): RequestRules => ({ wsVersion: WS_VERSION_2_1_0, startOfDay: (date) => context.startOfDay(date) });

/** A 2.1.0 response element (M) holding S:ServiceMessageArray, or `content` before it. */
const response =
  (name: string, list: readonly ServiceMessage[], content = ''): Payload =>
  (out) =>
    out.add(`<${name} xmlns="${OSN_V21_NS}">${content}${list.length > 0 ? messagesXml(list) : ''}</${name}>`);

const getOrderShipmentNotification: SoapV21Operation = {
  name: 'v2.1/getOrderShipmentNotification',
  async run(request, context) {
    const answer = await shipmentAnswer(readShipmentRequest(soapSource(request), rules(context)), context, 'shipmentNotificationV21Batches');
    if ('found' in answer) return { streamed: shipmentNotificationPayloadAsRead(OSN_2_1_0_WRITING, answer.found, context.degraded) };
    // An unknown reference and another client's are answered alike: nothing says which.
    return this.messagesOnly([messages.noDataFound()]);
  },
  messagesOnly: (list) => response('GetOrderShipmentNotificationResponse', list),
};

const getServiceMethods: SoapV21Operation = {
  name: 'v2.1/getServiceMethods',
  async run(request, context) {
    const credential = await authorize(readServiceMethodsRequest(soapSource(request), rules(context)).login, 'osn', context);
    const methods = ['getOrderShipmentNotification', 'getServiceMethods'];
    if (await context.pushSubscribed(credential.id)) methods.push('sendAdvanceShipmentNotification');
    return response('GetServiceMethodsResponse', [], sharedXml.arrayXml('ServiceMethodArray', methods, IN_SHARED));
  },
  messagesOnly: (list) => response('GetServiceMethodsResponse', list),
};

const sendAdvanceShipmentNotification: SoapV21Operation = {
  name: 'v2.1/sendAdvanceShipmentNotification',
  async run(request, context) {
    await authorize(readServiceMethodsRequest(soapSource(request), rules(context)).login, 'osn', context);
    throw new ServiceMessageError(messages.notReceiving());
  },
  messagesOnly: (list) => response('SendAdvanceShipmentNotificationResponse', list),
};

export const SHIPMENT_NOTIFICATION_V21_OPERATIONS: ReadonlyMap<string, SoapV21Operation> = new Map([
  ['GetOrderShipmentNotificationRequest', getOrderShipmentNotification],
  ['GetServiceMethodsRequest', getServiceMethods],
  ['SendAdvanceShipmentNotificationRequest', sendAdvanceShipmentNotification],
]);
