// The OSN shipments answer as it is read, for every version that writes it (oss-osn-2.0.0.md §4.3,
// docs/design/osn-2.1.0.md §1): the fitted content (notification-content.ts) of a batch of purchase
// orders at a time (docs/partners.md, "Large answers"); an answer read whole (queryType 1, 2) is
// one batch. A version gives its NotificationWriting: the dialect of the content and how its
// elements are named.
import type { CappedBatches, ShipmentNotificationV2View } from '../../../../contracts/lookup-answers-v2.js';
import type { AnswerChunks } from '../../http/answer-chunks.js';
import type { StreamedPayload } from '../../protocol/soap/envelope.js';
import type { Degraded } from '../fitting.js';
import { capMessages, type ServiceMessage } from '../service-messages.js';
import { orderShipmentNotificationContent, type NotificationDialect, type OrderShipmentNotificationContent } from './notification-content.js';

/** How one version writes the shipments answer's XML. */
export interface NotificationWriting {
  dialect: NotificationDialect;
  /** The response element's start tag without its brackets, its namespaces declared. */
  response: string;
  /** The start tag of OrderShipmentNotificationArray. */
  arrayStart: string;
  /** One OrderShipmentNotification. */
  notificationXml(content: OrderShipmentNotificationContent): string;
  /** The ServiceMessageArray of these messages. */
  messagesXml(list: readonly ServiceMessage[]): string;
}

/** The notifications of these purchase orders, each fitted as it is asked for; a purchase order with nothing to show gives none. */
export function* notificationContents(views: readonly ShipmentNotificationV2View[], degraded: Degraded, dialect: NotificationDialect): Generator<OrderShipmentNotificationContent> {
  for (const view of views) {
    const content = orderShipmentNotificationContent(view, degraded, dialect);
    if (content) yield content;
  }
}

/** Writes these notifications after others were (`started`: the response element is open) or not; whether it is open now. */
function writeNotifications(writing: NotificationWriting, views: readonly ShipmentNotificationV2View[], degraded: Degraded, out: AnswerChunks, started: boolean): boolean {
  for (const content of notificationContents(views, degraded, writing.dialect)) {
    if (!started) out.add(`<${writing.response}>${writing.arrayStart}`);
    started = true;
    out.add(writing.notificationXml(content));
  }
  return started;
}

/**
 * Ends the response element after its notifications (`started`: any was written), with the 200
 * Warning. No notification leaves OrderShipmentNotificationArray out (it needs one), so the empty
 * answer is the empty response element.
 */
function endPayload(writing: NotificationWriting, out: AnswerChunks, started: boolean, warnings: readonly ServiceMessage[]): void {
  if (started) out.add('</OrderShipmentNotificationArray>');
  if (warnings.length > 0) {
    if (!started) out.add(`<${writing.response}>`);
    started = true;
    out.add(writing.messagesXml(warnings));
  }
  out.add(started ? '</GetOrderShipmentNotificationResponse>' : `<${writing.response}/>`);
}

/**
 * Writes the content of M:GetOrderShipmentNotificationResponse (its element and the 200 Warning
 * included) as the batches come, yielding after each; each notification fitted as it is written.
 */
export function shipmentNotificationPayloadAsRead(writing: NotificationWriting, answer: CappedBatches<ShipmentNotificationV2View>, degraded: Degraded): StreamedPayload {
  return async function* (out) {
    let started = false;
    for await (const views of answer.batches) {
      started = writeNotifications(writing, views, degraded, out, started);
      yield;
    }
    endPayload(writing, out, started, capMessages(answer));
  };
}
