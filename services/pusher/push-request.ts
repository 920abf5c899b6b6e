// One notification to one subscription's receiver (docs/design/osn-2.1.0.md §2): a purchase
// order's latest picture for a client, the request that carries it with the receiver's login, and
// the receiver's answer judged. The pusher's workers (subscription-worker.ts) and `ossn push test`
// send alike through these: what a test shows is what the pusher would send and conclude.
import type { ShipmentNotificationV2View } from '../../contracts/lookup-answers-v2.js';
import { readWhole, type OrderLookupsV2 } from '../../contracts/lookups.js';
import type { SendRequest, SendResult } from '../adapters/receiver/send-notification.js';
import type { SecretKey } from '../config/secret-key.js';
import { openReceiverPassword } from '../domain/push/receiver-password.js';
import type { PushSubscription } from '../domain/push/subscription.js';
import type { Degraded } from '../query/v2-core/fitting.js';
import { advanceShipmentNotificationRequest } from '../query/versions/2.1.0/osn/advance-shipment-notification.js';
import { judgeDelivery, type DeliveryOutcome } from './delivery-outcome.js';

export type PictureLookups = Pick<OrderLookupsV2, 'shipmentNotificationV21Batches'>;

/** `text` with every occurrence of `secret` replaced: a receiver may quote our request back. */
export function scrub(text: string | undefined, secret: string | undefined): string | undefined {
  if (text === undefined || secret === undefined || secret === '') return text;
  return text.split(secret).join('[redacted]');
}

/** The purchase order's latest picture for the client, as a 2.1.0 queryType 1 answers it; undefined when it shows nothing. */
export async function latestPicture(lookups: PictureLookups, clientId: string, purchaseOrderNumber: string, signal?: AbortSignal): Promise<ShipmentNotificationV2View | undefined> {
  const answer = await readWhole(await lookups.shipmentNotificationV21Batches([clientId], { queryType: 1, referenceNumber: purchaseOrderNumber }, signal));
  return answer.orders[0];
}

/** A request for a subscription's receiver: its body holds the receiver's password, kept beside it to scrub the receiver's words. */
export interface SubscriptionRequest {
  body: string;
  password: string | undefined;
}

/**
 * The request sending `view` to the subscription's receiver, with its id, password (opened with
 * `key`) and customer identifier; undefined when the view has no shipment with a package to show
 * (2.1.0's ShipmentArray needs one). The password is opened first: one that does not open throws
 * its ReceiverPasswordUnreadableError whatever the view.
 */
export function subscriptionRequest(
  subscription: Pick<PushSubscription, 'id' | 'receiverPassword' | 'receiverId' | 'customerIdentifier'>,
  view: ShipmentNotificationV2View | undefined,
  key: SecretKey,
  degraded: Degraded = () => undefined,
): SubscriptionRequest | undefined {
  const password = openReceiverPassword(subscription, key)?.reveal();
  const body = view && advanceShipmentNotificationRequest(view, { id: subscription.receiverId, password, customerIdentifier: subscription.customerIdentifier }, degraded);
  return body && { body: body.toString('utf8'), password };
}

/**
 * Sends the request once and judges the answer (delivery-outcome.ts); a reason the receiver wrote
 * is scrubbed of the password. Rejects only when `signal` aborts.
 */
export async function sendJudged(
  send: (request: SendRequest) => Promise<SendResult>,
  url: string,
  request: SubscriptionRequest,
  options: Pick<SendRequest, 'timeoutMs' | 'maxAnswerBytes' | 'signal'>,
): Promise<DeliveryOutcome> {
  const outcome = judgeDelivery(await send({ url, body: request.body, ...options }));
  return outcome.kind === 'acknowledged' ? outcome : { ...outcome, reason: scrub(outcome.reason, request.password) as string };
}

/**
 * A purchase order of the client with a package to show, for a trial send: the first a 2.1.0
 * queryType 3 since the epoch answers (it answers only locations with packages); undefined when
 * the client has none. Only its first batch is read.
 */
export async function somePurchaseOrder(lookups: PictureLookups, clientId: string, signal?: AbortSignal): Promise<string | undefined> {
  const { batches } = await lookups.shipmentNotificationV21Batches([clientId], { queryType: 3, shipmentDateTimeStamp: new Date(0) }, signal);
  // Leaving the loop ends the lookup's work.
  for await (const batch of batches) if (batch[0]) return batch[0].purchaseOrderNumber;
  return undefined;
}
