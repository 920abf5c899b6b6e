// Partners' receivers for bench/push.ts, in a process of their own (so their work is neither the
// bench's nor the pusher's): RECEIVER_COUNT trial receivers built from the official 2.1.0 WSDL
// (scripts/receiver/receiver.ts), each on a port of its own, so each is a receiver origin of its
// own to the pusher, as partners' receivers are. Each expects the id RECEIVER_ID and the password
// RECEIVER_PASSWORD. Over IPC it tells its parent the receivers' URLs, then every notification
// accepted: which receiver, when (its receivedAt), the customerIdentifier, the purchase order and
// the tracking numbers of every package in it.
import type { AcceptedNotification, Receiver } from '../../scripts/receiver/receiver.js';
import { startReceiver } from '../../scripts/receiver/receiver.js';

export type ReceiversMessage =
  | { type: 'ready'; urls: string[] }
  | { type: 'accepted'; notifications: AcceptedMessage[] };

export interface AcceptedMessage {
  receiver: number;
  receivedAtMs: number;
  transactionId: string;
  customerIdentifier: string | undefined;
  purchaseOrderNumber: string;
  trackingNumbers: string[];
}

/** Every trackingNumber anywhere in the notification as node-soap parsed it. */
function trackingNumbers(notification: Record<string, unknown>): string[] {
  const found: string[] = [];
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) for (const item of value) walk(item);
    else if (value !== null && typeof value === 'object') {
      for (const [key, inner] of Object.entries(value)) {
        if (key === 'trackingNumber' && typeof inner === 'string') found.push(inner);
        else walk(inner);
      }
    }
  };
  walk(notification);
  return found;
}

const toMessage = (receiver: number, accepted: AcceptedNotification): AcceptedMessage => ({
  receiver,
  receivedAtMs: accepted.receivedAt.getTime(),
  transactionId: accepted.transactionId,
  customerIdentifier: accepted.customerIdentifier,
  purchaseOrderNumber: String(accepted.notification['purchaseOrderNumber']),
  trackingNumbers: trackingNumbers(accepted.notification),
});

async function main(): Promise<void> {
  const send = process.send?.bind(process);
  if (!send) throw new Error('bench/support/push-receivers.ts runs as a child of bench/push.ts (with an IPC channel)');
  const count = Number(process.env.RECEIVER_COUNT ?? '1');
  const login = { id: process.env.RECEIVER_ID ?? 'ossn', password: process.env.RECEIVER_PASSWORD || undefined };
  const receivers: Receiver[] = [];
  for (let i = 0; i < count; i++) receivers.push(await startReceiver({ login }));
  send({ type: 'ready', urls: receivers.map((r) => r.url) } satisfies ReceiversMessage);
  // The accepted notifications are handed on in batches; each keeps the time it was accepted at.
  const shown = receivers.map(() => 0);
  const forward = setInterval(() => {
    const notifications: AcceptedMessage[] = [];
    receivers.forEach((receiver, index) => {
      for (const accepted of receiver.accepted.slice(shown[index])) notifications.push(toMessage(index, accepted));
      shown[index] = receiver.accepted.length;
    });
    if (notifications.length > 0) send({ type: 'accepted', notifications } satisfies ReceiversMessage);
  }, 200);
  const stop = () => {
    clearInterval(forward);
    void Promise.all(receivers.map((r) => r.close())).then(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  process.once('disconnect', stop);
}

await main();
