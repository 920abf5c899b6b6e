// The OSN 2.0.0 answer, SOAP and JSON, from the 2.0.0 views (oss-osn-2.0.0.md §4.3): the same
// fitted content written as the content of M:GetOrderShipmentNotificationResponse
// (../../../v2-core/osn/notification-answer.ts, as read) or sent as the JSON v2 twin's body.
import { mapBatches } from '../../../../../contracts/lookups.js';
import type { CappedBatches, ShipmentNotificationV2View } from '../../../../../contracts/lookup-answers-v2.js';
import type { AnswerChunks } from '../../../http/answer-chunks.js';
import type { StreamedPayload } from '../../../protocol/soap/envelope.js';
import type { Degraded } from '../../../v2-core/fitting.js';
import { notificationContents, shipmentNotificationPayloadAsRead, type NotificationWriting } from '../../../v2-core/osn/notification-answer.js';
import { WEIGHT_UOMS, type NotificationDialect } from '../../../v2-core/osn/notification-content.js';
import { capMessages } from '../../../v2-core/service-messages.js';
import { writeJsonAnswerAsRead } from '../json/answer-body.js';
import { OSN_V2_NS, OSN_V2_SHARED_NS } from '../namespaces.js';
import { contentXml } from './content-xml.js';

const sameWords = new Map(WEIGHT_UOMS.map((word) => [word, word]));

/** OSN 2.0.0's SOAP answer: weightUOMType is the contract's words, any fraction digits, no shipReferences. */
export const OSN_2_0_0_SOAP: NotificationDialect = { weightUoms: sameWords, shipReferences: false };
/** The JSON v2 shipments twin: 2.0.0's content, and shipReferences (additive: docs/design/osn-2.1.0.md §1). */
export const OSN_2_0_0_JSON: NotificationDialect = { weightUoms: sameWords, shipReferences: true };

/** 2.0.0: M elements, the S ones they take by ref prefixed `shar`. */
export const OSN_2_0_0_WRITING: NotificationWriting = {
  dialect: OSN_2_0_0_SOAP,
  response: `GetOrderShipmentNotificationResponse xmlns="${OSN_V2_NS}" xmlns:shar="${OSN_V2_SHARED_NS}"`,
  arrayStart: '<OrderShipmentNotificationArray>',
  notificationXml: (content) => contentXml('OrderShipmentNotification', content),
  messagesXml: (list) => contentXml('ServiceMessageArray', list.map((message) => ({ ...message }))),
};

/** The OSN 2.0.0 SOAP answer, written as read. */
export const shipmentNotificationV2PayloadAsRead = (answer: CappedBatches<ShipmentNotificationV2View>, degraded: Degraded): StreamedPayload =>
  shipmentNotificationPayloadAsRead(OSN_2_0_0_WRITING, answer, degraded);

/**
 * Writes the JSON v2 twin's body as the batches come, yielding after each: the same content, each
 * XArray a JSON array, native numbers and booleans, absent = no key; one notification at a time, as
 * the SOAP answer is written.
 */
export function shipmentNotificationV2JsonAsRead(answer: CappedBatches<ShipmentNotificationV2View>, degraded: Degraded): (out: AnswerChunks) => AsyncIterable<void> {
  return (out) =>
    writeJsonAnswerAsRead(out, 'OrderShipmentNotificationArray', mapBatches(answer.batches, (views) => notificationContents(views, degraded, OSN_2_0_0_JSON)), capMessages(answer));
}
