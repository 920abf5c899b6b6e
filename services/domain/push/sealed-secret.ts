// A secret ossn must read back (a receiver's password, which it sends) kept at rest under the
// operator's key (docs/operations.md, Push subscriptions): AES-256-GCM, an authenticated cipher,
// so a changed or misplaced value is refused, not opened to garbage. A random 12-byte IV for
// each sealing; the key's id stored beside it, so a value sealed under another key is named as
// such, and keys can rotate.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { SealedSecret } from '../../adapters/mongodb/push-subscriptions.js';
import type { SecretKey } from '../../config/secret-key.js';

export type { SealedSecret };

const cipher = 'aes-256-gcm';
const ivBytes = 12;
const tagBytes = 16;

/**
 * `secret` sealed under `key`, bound to `context` (authenticated, not stored): it opens only with
 * the same context, so a sealed value copied onto another record does not open there.
 */
export function sealSecret(secret: string, key: SecretKey, context: string): SealedSecret {
  const iv = randomBytes(ivBytes);
  const sealing = createCipheriv(cipher, key.bytes(), iv, { authTagLength: tagBytes });
  sealing.setAAD(Buffer.from(context, 'utf8'));
  const ciphertext = Buffer.concat([sealing.update(secret, 'utf8'), sealing.final()]);
  return { cipher, keyId: key.id, iv: iv.toString('base64'), ciphertext: ciphertext.toString('base64'), tag: sealing.getAuthTag().toString('base64') };
}

/** Why a sealed value did not open: sealed under another key, or changed since (or sealed for another context). */
export type UnopenedReason = 'other-key' | 'damaged';

/** The secret, or why it does not open under `key` in `context`. */
export function openSecret(sealed: SealedSecret, key: SecretKey, context: string): { secret: string } | { reason: UnopenedReason } {
  if (sealed.keyId !== key.id) return { reason: 'other-key' };
  const iv = Buffer.from(sealed.iv, 'base64');
  const tag = Buffer.from(sealed.tag, 'base64');
  if (sealed.cipher !== cipher || iv.length !== ivBytes || tag.length !== tagBytes) return { reason: 'damaged' };
  try {
    const opening = createDecipheriv(cipher, key.bytes(), iv, { authTagLength: tagBytes });
    opening.setAAD(Buffer.from(context, 'utf8'));
    opening.setAuthTag(tag);
    const plain = Buffer.concat([opening.update(Buffer.from(sealed.ciphertext, 'base64')), opening.final()]);
    return { secret: plain.toString('utf8') };
  } catch {
    // The cipher's own error says only that authentication failed.
    return { reason: 'damaged' };
  }
}
