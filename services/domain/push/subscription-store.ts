// The port through which the command line and the pusher reach the push subscriptions; the
// MongoDB adapter (services/adapters/mongodb/push-subscriptions.ts) fills it.
import type { PushSubscription } from './subscription.js';

export { PushSubscriptionExistsError, UnknownPushSubscriptionError } from '../../adapters/mongodb/push-subscriptions.js';

export interface PushSubscriptionStore {
  /** Stores a new subscription; PushSubscriptionExistsError when one for its credential, client and URL is there. */
  add(subscription: PushSubscription): Promise<void>;
  /** Every subscription, oldest first. */
  list(): Promise<PushSubscription[]>;
  /** The enabled ones, oldest first: the ones to push to. */
  listEnabled(): Promise<PushSubscription[]>;
  find(id: string): Promise<PushSubscription | undefined>;
  /** Whether the credential has an enabled subscription (2.1.0's getServiceMethods lists sendAdvanceShipmentNotification then). */
  hasEnabled(credentialId: string, signal?: AbortSignal): Promise<boolean>;
  /** UnknownPushSubscriptionError when no subscription has the id (also for remove). */
  setEnabled(id: string, enabled: boolean): Promise<void>;
  remove(id: string): Promise<void>;
}
