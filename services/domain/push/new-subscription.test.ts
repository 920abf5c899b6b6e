import { describe, expect, it } from 'vitest';
import { SecretKey } from '../../config/secret-key.js';
import { newPushSubscription } from './new-subscription.js';
import { judgeSubscriptionRequest, type JudgedRequest, type SubscriptionRequest } from './subscription.js';

const key = new SecretKey(Buffer.alloc(32, 5));
const judgedAt = new Date('2026-06-01T12:00:00Z');
const addedAt = new Date('2026-06-01T12:05:00Z');
const judge = (request: Partial<SubscriptionRequest>) =>
  (judgeSubscriptionRequest({ credentialId: 'acme', url: 'https://r.example/osn', receiverId: 'ossn', ...request }, judgedAt) as { judged: JudgedRequest }).judged;

describe('a new subscription', () => {
  it('is enabled and created when added, pushing from then without --from (not from when it was judged: a password may be typed between)', () => {
    expect(newPushSubscription(judge({}), { key, now: addedAt, id: 'ps-1' })).toEqual({
      id: 'ps-1',
      credentialId: 'acme',
      url: 'https://r.example/osn',
      receiverId: 'ossn',
      enabled: true,
      createdAt: addedAt,
      cursorStart: addedAt,
    });
  });

  it('pushes from --from when given, and keeps the client and customer identifier', () => {
    const subscription = newPushSubscription(judge({ from: '2026-05-01T00:00:00Z', clientId: 'C1', customerIdentifier: 'ACME' }), { key, now: addedAt, id: 'ps-2' });
    expect(subscription).toMatchObject({ clientId: 'C1', customerIdentifier: 'ACME', createdAt: addedAt, cursorStart: new Date('2026-05-01T00:00:00Z') });
  });

  it('gets a generated id when none is given', () => {
    expect(newPushSubscription(judge({}), { key, now: addedAt }).id).toMatch(/^ps-[0-9a-z]{10}$/);
  });
});
