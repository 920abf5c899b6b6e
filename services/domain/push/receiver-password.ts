// A receiver's password: what the operator gives (`ossn push add`, from stdin), sealed at once
// and stored so (sealed-secret.ts), opened only to be sent. Held, it is never shown: printed,
// serialised, inspected or logged it reads [redacted]; and no error says it (see
// docs/operations.md, Push subscriptions).
import { inspect } from 'node:util';
import { ErrorCodes, OssnError } from '../../../contracts/errors/ossn-error.js';
import type { SecretKey } from '../../config/secret-key.js';
import type { PushSubscription } from './subscription.js';
import { openSecret, sealSecret, type SealedSecret, type UnopenedReason } from './sealed-secret.js';

/** As the receiver's other login field: 1 to 64 characters. */
export const MAX_RECEIVER_PASSWORD_LENGTH = 64;

const redacted = '[redacted]';

/** The password, held privately: only `reveal()` gives it, for the request that sends it. */
export class ReceiverPassword {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  reveal(): string {
    return this.#value;
  }

  toJSON(): string {
    return redacted;
  }

  toString(): string {
    return redacted;
  }

  [inspect.custom](): string {
    return `ReceiverPassword(${redacted})`;
  }
}

/**
 * Why `text` (a line read from stdin; empty: no password) cannot be a receiver's password, or
 * undefined. Surrounding whitespace is refused: a receiver reading XML drops it, as ours does.
 */
export function receiverPasswordProblem(text: string): string | undefined {
  if ([...text].length > MAX_RECEIVER_PASSWORD_LENGTH) return `the receiver password must be 1 to ${MAX_RECEIVER_PASSWORD_LENGTH} characters (an empty line: none)`;
  if (text.trim() !== text) return 'the receiver password must not begin or end with whitespace (a receiver would not read it)';
  // xsd:token, as the receiver reads it: a tab, a line break or a doubled space would be read otherwise, and every login fail.
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(text) || text.includes('  ')) return 'the receiver password must be an XML token: no control character (tab, line break) and no doubled space (a receiver would read it otherwise)';
  return undefined;
}

/** What the subscription's id binds a password to: sealed for one subscription, it opens for no other. */
const contextOf = (subscriptionId: string) => `ossn push subscription ${subscriptionId} receiver password`;

export function sealReceiverPassword(password: ReceiverPassword, key: SecretKey, subscriptionId: string): SealedSecret {
  return sealSecret(password.reveal(), key, contextOf(subscriptionId));
}

export class ReceiverPasswordUnreadableError extends OssnError {
  constructor(subscriptionId: string, sealedWith: string, keyId: string, reason: UnopenedReason) {
    const why =
      reason === 'other-key'
        ? `it was sealed with key ${sealedWith}, and the key given (OSSN_SECRET_KEY or OSSN_SECRET_KEY_FILE) is key ${keyId}: give ossn the key it was sealed with`
        : `it does not open with key ${keyId}, which sealed it: it was changed or damaged in the store; remove the subscription and add it again`;
    super(ErrorCodes.SECRET_UNREADABLE, `the receiver password of push subscription ${subscriptionId} cannot be read: ${why}`);
    this.name = 'ReceiverPasswordUnreadableError';
  }
}

/**
 * The subscription's receiver password, opened with `key` (undefined when it has none); a
 * ReceiverPasswordUnreadableError naming the subscription when it does not open.
 */
export function openReceiverPassword(subscription: Pick<PushSubscription, 'id' | 'receiverPassword'>, key: SecretKey): ReceiverPassword | undefined {
  if (subscription.receiverPassword === undefined) return undefined;
  const opened = openSecret(subscription.receiverPassword, key, contextOf(subscription.id));
  if ('reason' in opened) throw new ReceiverPasswordUnreadableError(subscription.id, subscription.receiverPassword.keyId, key.id, opened.reason);
  return new ReceiverPassword(opened.secret);
}
