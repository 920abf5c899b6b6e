// The OSN 2.0.0 answer, SOAP and JSON, from the 2.0.0 views (oss-osn-2.0.0.md §4.3): the same
// fitted content (notification-content.ts) written as the content of
// M:GetOrderShipmentNotificationResponse or sent as the JSON v2 twin's body. Both are sent as they
// are read, a batch of purchase orders at a time (docs/partners.md, "Large answers"); an answer read
// whole (queryType 1, 2) is sent as one batch.
import { mapBatches } from '../../../../../contracts/lookups.js';
import type { CappedBatches, ShipmentNotificationV2View } from '../../../../../contracts/lookup-answers-v2.js';
import type { AnswerChunks } from '../../../http/answer-chunks.js';
import type { StreamedPayload } from '../../../protocol/soap/envelope.js';
import type { Degraded } from '../fitting.js';
import { writeJsonAnswerAsRead } from '../json/answer-body.js';
import { OSN_V2_NS, OSN_V2_SHARED_NS } from '../namespaces.js';
import { capMessages, type ServiceMessage } from '../service-messages.js';
import { contentXml } from './content-xml.js';
import { orderShipmentNotificationContent, type OrderShipmentNotificationContent } from './notification-content.js';

/** The notifications of these purchase orders, each fitted as it is asked for; a purchase order with nothing to show gives none. */
function* notificationContents(views: readonly ShipmentNotificationV2View[], degraded: Degraded): Generator<OrderShipmentNotificationContent> {
  for (const view of views) {
    const content = orderShipmentNotificationContent(view, degraded);
    if (content) yield content;
  }
}

const OPEN = `GetOrderShipmentNotificationResponse xmlns="${OSN_V2_NS}" xmlns:shar="${OSN_V2_SHARED_NS}"`;

/** Writes these notifications after others were (`started`: the response element is open) or not; whether it is open now. */
function writeNotifications(views: readonly ShipmentNotificationV2View[], degraded: Degraded, out: AnswerChunks, started: boolean): boolean {
  for (const content of notificationContents(views, degraded)) {
    if (!started) out.add(`<${OPEN}><OrderShipmentNotificationArray>`);
    started = true;
    out.add(contentXml('OrderShipmentNotification', content));
  }
  return started;
}

/**
 * Ends the response element after its notifications (`started`: any was written), with the 200
 * Warning. No notification leaves OrderShipmentNotificationArray out (it needs one), so the empty
 * answer is the empty response element.
 */
function endPayload(out: AnswerChunks, started: boolean, warnings: readonly ServiceMessage[]): void {
  if (started) out.add('</OrderShipmentNotificationArray>');
  if (warnings.length > 0) {
    if (!started) out.add(`<${OPEN}>`);
    started = true;
    out.add(contentXml('ServiceMessageArray', warnings.map((message) => ({ ...message }))));
  }
  out.add(started ? '</GetOrderShipmentNotificationResponse>' : `<${OPEN}/>`);
}

/**
 * Writes the content of M:GetOrderShipmentNotificationResponse (its element and the 200 Warning
 * included) as the batches come, yielding after each; each notification fitted as it is written.
 */
export function shipmentNotificationV2PayloadAsRead(answer: CappedBatches<ShipmentNotificationV2View>, degraded: Degraded): StreamedPayload {
  return async function* (out) {
    let started = false;
    for await (const views of answer.batches) {
      started = writeNotifications(views, degraded, out, started);
      yield;
    }
    endPayload(out, started, capMessages(answer));
  };
}

/**
 * Writes the JSON v2 twin's body as the batches come, yielding after each: the same content, each
 * XArray a JSON array, native numbers and booleans, absent = no key; one notification at a time, as
 * the SOAP answer is written.
 */
export function shipmentNotificationV2JsonAsRead(answer: CappedBatches<ShipmentNotificationV2View>, degraded: Degraded): (out: AnswerChunks) => AsyncIterable<void> {
  return (out) => writeJsonAnswerAsRead(out, 'OrderShipmentNotificationArray', mapBatches(answer.batches, (views) => notificationContents(views, degraded)), capMessages(answer));
}
