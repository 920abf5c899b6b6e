// Whom a subscription pushes for, and how far behind it is (docs/design/osn-2.1.0.md §2). Pure:
// the pusher, `ossn status` and the metrics judge alike.
import type { PushSubscription } from '../domain/push/subscription.js';

/** What the pusher reads of the subscription's credential. */
export interface CredentialLinks {
  active: boolean;
  scopes: readonly string[];
  clientIds: readonly string[];
}

/**
 * The clients whose notifications the subscription sends now: none when its credential is gone,
 * inactive or without the osn scope (the partner could not poll them either); its one client while
 * the credential is linked to it; else every client the credential is linked to.
 */
export function clientsToPush(subscription: Pick<PushSubscription, 'clientId'>, credential: CredentialLinks | undefined): string[] {
  if (!credential || !credential.active || !credential.scopes.includes('osn')) return [];
  if (subscription.clientId !== undefined) return credential.clientIds.includes(subscription.clientId) ? [subscription.clientId] : [];
  return [...credential.clientIds];
}

/**
 * A subscription's lag, in ms: now less the time of its oldest news not yet delivered (pending or
 * parked), or, with none waiting, of its last completed poll (news after it is not seen yet), or
 * where it starts before its first poll. Never below 0.
 */
export function pushLagMs(now: Date, oldestWaitingNews: Date | undefined, cursor: Date | undefined, cursorStart: Date): number {
  const since = oldestWaitingNews ?? cursor ?? cursorStart;
  return Math.max(0, now.getTime() - since.getTime());
}
