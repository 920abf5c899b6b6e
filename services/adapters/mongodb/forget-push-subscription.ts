// What ossn keeps of a push subscription besides the subscription itself: its cursor (and lease) and
// its deliveries. `ossn push remove` forgets them, and so does a pusher that finds the subscription
// removed after its last round, whose poll may have recorded news again meanwhile.
import type { Db } from 'mongodb';
import { MongoPushCursors, pushCursorsCollection } from './push-cursors.js';
import { MongoPushDeliveries } from './push-deliveries.js';

export async function forgetPushSubscription(db: Db, subscriptionId: string): Promise<void> {
  await new MongoPushCursors(pushCursorsCollection(db)).remove(subscriptionId);
  await MongoPushDeliveries.of(db).removeSubscription(subscriptionId);
}
