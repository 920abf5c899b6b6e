// The OSN 2.0.0 answer, SOAP and JSON, from the 2.0.0 views (oss-osn-2.0.0.md §4.3): the same
// fitted content (notification-content.ts) written as the content of
// M:GetOrderShipmentNotificationResponse or sent as the JSON v2 twin's body.
import type { CappedAnswer, ShipmentNotificationV2View } from '../../../../contracts/lookup-answers-v2.js';
import type { AnswerChunks } from '../../http/answer-chunks.js';
import type { Degraded } from '../fitting.js';
import { contentXml } from './content-xml.js';
import { OSN_V2_NS, OSN_V2_SHARED_NS } from './namespaces.js';
import { orderShipmentNotificationContent, type OrderShipmentNotificationContent } from './notification-content.js';

/** S:ServiceMessage. */
export type ServiceMessageContent = {
  code: number;
  description: string;
  severity: 'Error' | 'Information' | 'Warning';
};

/** Sent beside the data when more purchase orders matched than the 5,000 the answer holds (§3). */
export const ANSWER_FULL_WARNING: ServiceMessageContent = {
  code: 200,
  description: 'Answer full: 5000 purchase orders; more may match',
  severity: 'Warning',
};

/**
 * Writes the content of M:GetOrderShipmentNotificationResponse (its element and the 200 Warning
 * included). No notification leaves OrderShipmentNotificationArray out (it needs one), so the empty
 * answer is the empty response element. Each notification is fitted as it is written.
 */
export function shipmentNotificationV2Payload(answer: CappedAnswer<ShipmentNotificationV2View>, degraded: Degraded): (out: AnswerChunks) => void {
  return (out) => {
    const open = `GetOrderShipmentNotificationResponse xmlns="${OSN_V2_NS}" xmlns:shar="${OSN_V2_SHARED_NS}"`;
    let started = false;
    for (const view of answer.orders) {
      const content = orderShipmentNotificationContent(view, degraded);
      if (!content) continue;
      if (!started) out.add(`<${open}><OrderShipmentNotificationArray>`);
      started = true;
      out.add(contentXml('OrderShipmentNotification', content));
    }
    if (started) out.add('</OrderShipmentNotificationArray>');
    if (answer.more) {
      if (!started) out.add(`<${open}>`);
      started = true;
      out.add(contentXml('ServiceMessageArray', [{ ...ANSWER_FULL_WARNING }]));
    }
    out.add(started ? '</GetOrderShipmentNotificationResponse>' : `<${open}/>`);
  };
}

/** The JSON v2 twin's body: the same content, each XArray a JSON array, native numbers and booleans, absent = no key. */
export function shipmentNotificationV2Json(answer: CappedAnswer<ShipmentNotificationV2View>, degraded: Degraded): Record<string, unknown> {
  const notifications: OrderShipmentNotificationContent[] = [];
  for (const view of answer.orders) {
    const content = orderShipmentNotificationContent(view, degraded);
    if (content) notifications.push(content);
  }
  const body: Record<string, unknown> = {};
  if (notifications.length > 0) body['OrderShipmentNotificationArray'] = notifications;
  if (answer.more) body['ServiceMessageArray'] = [{ ...ANSWER_FULL_WARNING }];
  return body;
}
