// The OSN 2.0.0 answer, SOAP and JSON, from the 2.0.0 views (oss-osn-2.0.0.md §4.3): the same
// fitted content (notification-content.ts) written as the content of
// M:GetOrderShipmentNotificationResponse or sent as the JSON v2 twin's body.
import type { CappedAnswer, ShipmentNotificationV2View } from '../../../../../contracts/lookup-answers-v2.js';
import type { AnswerChunks } from '../../../http/answer-chunks.js';
import type { Degraded } from '../fitting.js';
import { writeJsonAnswer } from '../json/answer-body.js';
import { OSN_V2_NS, OSN_V2_SHARED_NS } from '../namespaces.js';
import { capMessages } from '../service-messages.js';
import { contentXml } from './content-xml.js';
import { orderShipmentNotificationContent, type OrderShipmentNotificationContent } from './notification-content.js';

/** The notifications of the answer, each fitted as it is asked for; a purchase order with nothing to show gives none. */
function* notificationContents(answer: CappedAnswer<ShipmentNotificationV2View>, degraded: Degraded): Generator<OrderShipmentNotificationContent> {
  for (const view of answer.orders) {
    const content = orderShipmentNotificationContent(view, degraded);
    if (content) yield content;
  }
}

/**
 * Writes the content of M:GetOrderShipmentNotificationResponse (its element and the 200 Warning
 * included). No notification leaves OrderShipmentNotificationArray out (it needs one), so the empty
 * answer is the empty response element. Each notification is fitted as it is written.
 */
export function shipmentNotificationV2Payload(answer: CappedAnswer<ShipmentNotificationV2View>, degraded: Degraded): (out: AnswerChunks) => void {
  return (out) => {
    const open = `GetOrderShipmentNotificationResponse xmlns="${OSN_V2_NS}" xmlns:shar="${OSN_V2_SHARED_NS}"`;
    let started = false;
    for (const content of notificationContents(answer, degraded)) {
      if (!started) out.add(`<${open}><OrderShipmentNotificationArray>`);
      started = true;
      out.add(contentXml('OrderShipmentNotification', content));
    }
    if (started) out.add('</OrderShipmentNotificationArray>');
    const warnings = capMessages(answer);
    if (warnings.length > 0) {
      if (!started) out.add(`<${open}>`);
      started = true;
      out.add(contentXml('ServiceMessageArray', warnings.map((message) => ({ ...message }))));
    }
    out.add(started ? '</GetOrderShipmentNotificationResponse>' : `<${open}/>`);
  };
}

/**
 * Writes the JSON v2 twin's body: the same content, each XArray a JSON array, native numbers and
 * booleans, absent = no key; one notification at a time, as the SOAP answer is written.
 */
export function shipmentNotificationV2Json(answer: CappedAnswer<ShipmentNotificationV2View>, degraded: Degraded): (out: AnswerChunks) => void {
  return (out) => writeJsonAnswer(out, 'OrderShipmentNotificationArray', notificationContents(answer, degraded), capMessages(answer));
}
