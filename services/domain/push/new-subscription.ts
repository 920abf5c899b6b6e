// A subscription as `ossn push add` stores it: enabled, its receiver password sealed at once with
// the operator's key and bound to its id (receiver-password.ts), never kept in the clear.
import type { SecretKey } from '../../config/secret-key.js';
import { sealReceiverPassword, type ReceiverPassword } from './receiver-password.js';
import { newSubscriptionId, type JudgedRequest, type PushSubscription } from './subscription.js';

export interface NewSubscriptionParts {
  key: SecretKey;
  /** Absent: the receiver asks for none. */
  password?: ReceiverPassword;
  /** When it is added: its createdAt, and where pushing starts without --from. */
  now: Date;
  /** newSubscriptionId() unless given. */
  id?: string;
}

export function newPushSubscription(judged: JudgedRequest, { key, password, now, id = newSubscriptionId() }: NewSubscriptionParts): PushSubscription {
  const { credentialId, clientId, url, receiverId, customerIdentifier, cursorStart, allowHttp } = judged;
  return {
    id,
    credentialId,
    ...(clientId === undefined ? {} : { clientId }),
    url,
    ...(allowHttp ? { allowHttp } : {}),
    receiverId,
    ...(password === undefined ? {} : { receiverPassword: sealReceiverPassword(password, key, id) }),
    ...(customerIdentifier === undefined ? {} : { customerIdentifier }),
    enabled: true,
    createdAt: now,
    cursorStart: cursorStart ?? now,
  };
}
