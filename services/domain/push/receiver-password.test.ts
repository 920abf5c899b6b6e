import { Writable } from 'node:stream';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { SecretKey } from '../../config/secret-key.js';
import { createLogger } from '../../plumbing/logging/logger.js';
import { newPushSubscription } from './new-subscription.js';
import { openReceiverPassword, ReceiverPassword, ReceiverPasswordUnreadableError, receiverPasswordProblem } from './receiver-password.js';
import { judgeSubscriptionRequest, type JudgedRequest } from './subscription.js';

const key = new SecretKey(Buffer.alloc(32, 7));
const otherKey = new SecretKey(Buffer.alloc(32, 8));
const now = new Date('2026-06-01T12:00:00Z');
const password = 'receiver-Pässword 42';
const judged = (judgeSubscriptionRequest({ credentialId: 'acme', url: 'https://osn.acme.example/r', receiverId: 'ossn' }, now) as { judged: JudgedRequest }).judged;
const added = (id = 'ps-test000001') => newPushSubscription(judged, { key, password: new ReceiverPassword(password), now, id });

/** Everything a subscription or its opened password could be shown as: printed, serialised, inspected, logged at trace level. */
function everyShowing(...values: unknown[]): string[] {
  let logged = '';
  const out = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logged += chunk.toString();
      done();
    },
  });
  const logger = createLogger('test', 'trace', out);
  for (const value of values) {
    logger.trace({ value, nested: { deeper: value } }, 'a value');
    logger.trace(value as object, 'as the object');
  }
  return [...values.flatMap((value) => [JSON.stringify(value), inspect(value, { showHidden: true, depth: Infinity }), String(value), `${value as string}`]), logged];
}

describe('a receiver password sealed with the operator key', () => {
  it('is stored sealed, and opens to what was given with the same key', () => {
    const subscription = added();
    expect(subscription.receiverPassword).toMatchObject({ cipher: 'aes-256-gcm', keyId: key.id });
    expect(Buffer.from(subscription.receiverPassword!.iv, 'base64')).toHaveLength(12);
    expect(JSON.stringify(subscription)).not.toContain(password);
    expect(openReceiverPassword(subscription, key)?.reveal()).toBe(password);
  });

  it('is sealed with a fresh IV each time: the same password never looks the same twice', () => {
    const [a, b] = [added(), added()];
    expect(a.receiverPassword!.iv).not.toBe(b.receiverPassword!.iv);
    expect(a.receiverPassword!.ciphertext).not.toBe(b.receiverPassword!.ciphertext);
  });

  it('is none when the receiver asks for none', () => {
    const subscription = newPushSubscription(judged, { key, now, id: 'ps-nopassword' });
    expect(subscription).not.toHaveProperty('receiverPassword');
    expect(openReceiverPassword(subscription, key)).toBeUndefined();
  });

  it('refuses to open with another key, naming the subscription and both key ids, never the password or its sealed form', () => {
    const subscription = added();
    const opening = () => openReceiverPassword(subscription, otherKey);
    expect(opening).toThrow(ReceiverPasswordUnreadableError);
    expect(opening).toThrow(
      `the receiver password of push subscription ps-test000001 cannot be read: it was sealed with key ${key.id}, and the key given (OSSN_SECRET_KEY or OSSN_SECRET_KEY_FILE) is key ${otherKey.id}: give ossn the key it was sealed with`,
    );
    const error = (() => {
      try {
        opening();
      } catch (caught) {
        return caught as ReceiverPasswordUnreadableError;
      }
    })();
    expect(error?.code).toBe('OSSN_SECRET_UNREADABLE');
    for (const text of everyShowing(error)) {
      expect(text).not.toContain(password);
      expect(text).not.toContain(subscription.receiverPassword!.ciphertext);
    }
  });

  it.each<[string, (sealed: NonNullable<ReturnType<typeof added>['receiverPassword']>) => object]>([
    ['a changed ciphertext', (s) => ({ ...s, ciphertext: Buffer.from(Buffer.from(s.ciphertext, 'base64').map((b, i) => (i === 0 ? b ^ 1 : b))).toString('base64') })],
    ['a changed tag', (s) => ({ ...s, tag: Buffer.alloc(16, 1).toString('base64') })],
    ['a changed IV', (s) => ({ ...s, iv: Buffer.alloc(12, 1).toString('base64') })],
    ['a cut tag', (s) => ({ ...s, tag: Buffer.alloc(4, 1).toString('base64') })],
  ])('refuses %s as damaged, naming the subscription', (_case, damage) => {
    const subscription = added();
    const damaged = { ...subscription, receiverPassword: damage(subscription.receiverPassword!) } as typeof subscription;
    expect(() => openReceiverPassword(damaged, key)).toThrow(
      `the receiver password of push subscription ps-test000001 cannot be read: it does not open with key ${key.id}, which sealed it: it was changed or damaged in the store; remove the subscription and add it again`,
    );
  });

  it("does not open on another subscription: a sealed password copied onto another is refused", () => {
    const copied = { ...added('ps-other000001'), receiverPassword: added().receiverPassword };
    expect(() => openReceiverPassword(copied, key)).toThrow(/push subscription ps-other000001 cannot be read: it does not open/);
  });

  it('is never shown: the subscription and the opened password printed, serialised, inspected or logged at trace level', () => {
    const subscription = added();
    const opened = openReceiverPassword(subscription, key)!;
    const shown = everyShowing(subscription, opened, { subscription, password: opened, receiver: { password: opened } });
    expect(shown.at(-1)).toContain('[redacted]');
    for (const text of shown) expect(text).not.toContain(password);
    expect(inspect(opened)).toBe('ReceiverPassword([redacted])');
    expect(JSON.stringify({ opened })).toBe('{"opened":"[redacted]"}');
  });
});

describe('what a receiver password may be', () => {
  it.each<[string, string, string | undefined]>([
    ['one character', 'x', undefined],
    ['64 characters', 'é'.repeat(64), undefined],
    ['inner spaces', 'a b c', undefined],
    ['65 characters', 'x'.repeat(65), 'the receiver password must be 1 to 64 characters (an empty line: none)'],
    ['a space before', ' secret', 'the receiver password must not begin or end with whitespace (a receiver would not read it)'],
    ['a tab after', 'secret\t', 'the receiver password must not begin or end with whitespace (a receiver would not read it)'],
    ['a doubled space inside', 'sec  ret', 'the receiver password must be an XML token: no control character (tab, line break) and no doubled space (a receiver would read it otherwise)'],
    ['a tab inside', 'sec\tret', 'the receiver password must be an XML token: no control character (tab, line break) and no doubled space (a receiver would read it otherwise)'],
    ['a control character inside', 'sec\u0001ret', 'the receiver password must be an XML token: no control character (tab, line break) and no doubled space (a receiver would read it otherwise)'],
  ])('%s', (_case, text, problem) => {
    expect(receiverPasswordProblem(text)).toBe(problem);
  });
});
