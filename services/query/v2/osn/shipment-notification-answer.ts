// STUB (issue 19): the OSN 2.0.0 answer, SOAP and JSON, from the 2.0.0 views (oss-osn-2.0.0.md §4.3).
// The OSN 2.0.0 endpoint (services/query/v2) calls these; the OSN work replaces the bodies.
import type { CappedAnswer, ShipmentNotificationV2View } from '../../../../contracts/lookup-answers-v2.js';
import type { AnswerChunks } from '../../http/answer-chunks.js';
import type { Degraded } from '../fitting.js';

/** Writes the content of M:GetOrderShipmentNotificationResponse (its element and the 200 Warning included). */
export function shipmentNotificationV2Payload(answer: CappedAnswer<ShipmentNotificationV2View>, degraded: Degraded): (out: AnswerChunks) => void {
  void answer;
  void degraded;
  throw new Error('OSN 2.0.0 answer not built yet');
}

/** The JSON v2 twin's body: the same content, each XArray a JSON array, native numbers and booleans. */
export function shipmentNotificationV2Json(answer: CappedAnswer<ShipmentNotificationV2View>, degraded: Degraded): Record<string, unknown> {
  void answer;
  void degraded;
  throw new Error('OSN 2.0.0 answer not built yet');
}
