// `ossn push test` (docs/operations.md, Push subscriptions): one real request, now, to a
// subscription's receiver: a purchase order's latest picture as the pusher would send it, and the
// receiver's answer as the pusher would judge it (services/pusher/push-request.ts, both). Nothing
// is recorded: the subscription's cursor and deliveries are left as they are.
import type { ShipmentNotificationV2View } from '../../contracts/lookup-answers-v2.js';
import type { StoreDatabase } from '../adapters/mongodb/connect.js';
import { CredentialStore, credentialsCollection, type CredentialDocument } from '../adapters/mongodb/credential-store.js';
import { SwitchingLookups } from '../adapters/mongodb/switching-lookups.js';
import { sendNotification } from '../adapters/receiver/send-notification.js';
import type { SecretKey } from '../config/secret-key.js';
import type { PushSubscription } from '../domain/push/subscription.js';
import type { DeliveryOutcome } from '../pusher/delivery-outcome.js';
import { latestPicture, scrub, sendJudged, somePurchaseOrder, subscriptionRequest, type SubscriptionRequest } from '../pusher/push-request.js';
import { clientsToPush } from '../pusher/push-targets.js';

export interface PushTest {
  db: StoreDatabase;
  subscription: PushSubscription;
  key: SecretKey;
  /** READ_MODEL_VERSION: read from until a replay records the active one. */
  readModelVersion: number;
  purchaseOrderNumber: string | undefined;
  sendTimeoutMs: number;
}

/** What was sent and what came of it, in lines to print; acknowledged or not (the exit code). */
export interface PushTestResult {
  lines: string[];
  acknowledged: boolean;
}

/** Why a subscription pushes for no client now (clientsToPush found none). */
function noClientReason(subscription: PushSubscription, credential: CredentialDocument | null): string {
  const id = subscription.credentialId;
  if (!credential) return `its credential ${id} is gone`;
  if (!credential.active) return `its credential ${id} is disabled`;
  if (!credential.scopes.includes('osn')) return `its credential ${id} lacks the osn scope`;
  if (subscription.clientId !== undefined) return `its credential ${id} is not linked to client ${subscription.clientId}`;
  return `its credential ${id} is linked to no client`;
}

const http = (status: number | undefined) => (status === undefined ? 'no HTTP answer' : `HTTP ${status}`);

/** The outcome in one line: its kind, the HTTP status, and what the receiver said or why it is judged so. */
export function describeOutcome(outcome: DeliveryOutcome): string {
  if (outcome.kind === 'acknowledged') {
    const messages = outcome.messages.map((m) => `; service message ${m.severity} ${m.code}: ${m.description}`).join('');
    return `acknowledged, HTTP 200: transactionId ${outcome.transactionId ?? '(none)'}${messages}`;
  }
  const notBefore = outcome.kind === 'transient' && outcome.notBefore ? ` (the receiver asks for no retry before ${outcome.notBefore.toISOString()})` : '';
  return `${outcome.kind}, ${http(outcome.status)}: ${outcome.reason}${notBefore}`;
}

export async function pushTest({ db, subscription, key, readModelVersion, purchaseOrderNumber, sendTimeoutMs }: PushTest): Promise<PushTestResult> {
  const credential = await new CredentialStore(credentialsCollection(db)).find(subscription.credentialId);
  const clients = clientsToPush(subscription, credential ?? undefined);
  if (clients.length === 0) throw new Error(`push subscription ${subscription.id} pushes for no client now: ${noClientReason(subscription, credential)}`);
  // The active read-model version, read once (as the pusher reads it, without following it).
  const lookups = new SwitchingLookups(db, { fallbackVersion: readModelVersion });
  await lookups.refresh();

  let chosen: { clientId: string; view: ShipmentNotificationV2View; request: SubscriptionRequest } | undefined;
  for (const clientId of clients) {
    const number = purchaseOrderNumber ?? (await somePurchaseOrder(lookups, clientId));
    if (number === undefined) continue;
    const view = await latestPicture(lookups, clientId, number);
    // Throws when the receiver password does not open, naming the subscription.
    const request = subscriptionRequest(subscription, view, key);
    if (view && request) {
      chosen = { clientId, view, request };
      break;
    }
  }
  const whose = clients.length === 1 ? `client ${clients[0]}` : `clients ${clients.join(', ')}`;
  if (!chosen) {
    throw new Error(
      purchaseOrderNumber === undefined
        ? `no purchase order of ${whose} has a package to show: nothing to send (a notification needs one)`
        : `purchase order ${purchaseOrderNumber} has no package to show for ${whose}: nothing to send (a notification needs one)`,
    );
  }
  const { clientId, view, request } = chosen;
  const outcome = await sendJudged(sendNotification, subscription.url, request, { timeoutMs: sendTimeoutMs });
  return {
    lines: [`sent purchase order ${view.purchaseOrderNumber} of client ${clientId} to ${subscription.url}`, scrub(describeOutcome(outcome), request.password) as string],
    acknowledged: outcome.kind === 'acknowledged',
  };
}
