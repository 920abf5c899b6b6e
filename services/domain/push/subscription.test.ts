import { describe, expect, it } from 'vitest';
import { credentialProblem, judgeSubscriptionRequest, newSubscriptionId, overlappingSubscription, parseDateTime, subscriptionView, type PushSubscription, type SubscriptionRequest } from './subscription.js';

const now = new Date('2026-06-01T12:00:00.000Z');
const base: SubscriptionRequest = { credentialId: 'acme', url: 'https://osn.acme.example/receiver', receiverId: 'ossn-at-acme' };

describe('a subscription request', () => {
  it('holds with the URL normalised, no cursor start without --from (the time it is added), and no client meaning every client', () => {
    expect(judgeSubscriptionRequest({ ...base, url: 'HTTPS://OSN.ACME.example:443/receiver' }, now)).toEqual({
      judged: { credentialId: 'acme', clientId: undefined, url: 'https://osn.acme.example/receiver', receiverId: 'ossn-at-acme', customerIdentifier: undefined, cursorStart: undefined },
    });
    expect(judgeSubscriptionRequest({ ...base, clientId: 'C1', customerIdentifier: 'ACME Corp 7', from: '2026-05-01T10:00:00+02:00' }, now)).toEqual({
      judged: { credentialId: 'acme', clientId: 'C1', url: base.url, receiverId: 'ossn-at-acme', customerIdentifier: 'ACME Corp 7', cursorStart: new Date('2026-05-01T08:00:00Z') },
    });
  });

  const idRule = 'must be 1 to 64 characters, without control characters or surrounding whitespace';
  const receiverIdRule = 'must be 1 to 64 characters, without control characters, surrounding or doubled spaces (an XML token)';
  const tokenRule = 'the customer identifier (--customer-identifier) must be 1 to 64 characters, without control characters, surrounding or doubled spaces (an XML token)';
  it.each<[string, Partial<SubscriptionRequest>, string[]]>([
    ['an empty receiver id', { receiverId: '' }, [`the receiver id (--id) ${receiverIdRule}`]],
    ['a receiver id of 65 characters', { receiverId: 'r'.repeat(65) }, [`the receiver id (--id) ${receiverIdRule}`]],
    ['a receiver id with a tab', { receiverId: 'a\tb' }, [`the receiver id (--id) ${receiverIdRule}`]],
    ['a receiver id with a space around it', { receiverId: ' ossn' }, [`the receiver id (--id) ${receiverIdRule}`]],
    // xsd:token, as the receiver reads it: a doubled space would be read as one, and every login fail.
    ['a receiver id with a doubled space', { receiverId: 'ossn  at acme' }, [`the receiver id (--id) ${receiverIdRule}`]],
    ['a credential id of 65 characters', { credentialId: 'c'.repeat(65) }, [`a credential id ${idRule}`]],
    ['a client id with a line break', { clientId: 'C1\n' }, [`a client id (--client) ${idRule}`]],
    ['a customer identifier with doubled spaces', { customerIdentifier: 'ACME  Corp' }, [tokenRule]],
    ['a customer identifier with a space after it', { customerIdentifier: 'ACME ' }, [tokenRule]],
    ['a customer identifier of 65 characters', { customerIdentifier: 'x'.repeat(65) }, [tokenRule]],
    ['--from without a zone', { from: '2026-05-01T10:00:00' }, ['--from must be a date and time with its zone, like 2026-05-01T10:00:00Z; got "2026-05-01T10:00:00"']],
    ['--from a date only', { from: '2026-05-01' }, ['--from must be a date and time with its zone, like 2026-05-01T10:00:00Z; got "2026-05-01"']],
    ['--from in the future', { from: '2026-06-01T12:00:01Z' }, ['--from 2026-06-01T12:00:01Z is in the future: give a past time to push what came since, or leave --from out (from now)']],
    [
      'several mistakes at once',
      { url: 'http://osn.acme.example/', receiverId: '' },
      ['the receiver URL must be https (http only to this machine: localhost, 127.0.0.0/8, ::1; or with --allow-http, for a trial)', `the receiver id (--id) ${receiverIdRule}`],
    ],
  ])('refuses %s', (_case, change, problems) => {
    expect(judgeSubscriptionRequest({ ...base, ...change }, now)).toEqual({ problems });
  });

  it('takes 64 characters, counted as code points, and --from at now exactly', () => {
    const judged = judgeSubscriptionRequest({ ...base, receiverId: 'é'.repeat(64), customerIdentifier: 'ü'.repeat(64), from: '2026-06-01T12:00:00Z' }, now);
    expect(judged).toMatchObject({ judged: { cursorStart: now } });
  });

  it('takes http with --allow-http, for a trial', () => {
    expect(judgeSubscriptionRequest({ ...base, url: 'http://osn.acme.example/', allowHttp: true }, now)).toMatchObject({ judged: { url: 'http://osn.acme.example/', allowHttp: true } });
    // Kept only where it matters: the pusher judges the URL again by the same rule.
    expect(judgeSubscriptionRequest({ ...base, url: 'https://osn.acme.example/', allowHttp: true }, now)).not.toHaveProperty('judged.allowHttp');
  });
});

describe('a date and time with its zone', () => {
  it.each<[string, string | undefined]>([
    ['2026-05-01T10:00:00Z', '2026-05-01T10:00:00.000Z'],
    ['2026-05-01T10:00Z', '2026-05-01T10:00:00.000Z'],
    ['2026-05-01T10:00:00.5Z', '2026-05-01T10:00:00.500Z'],
    ['2026-05-01T10:00:00.123456789Z', '2026-05-01T10:00:00.123Z'],
    ['2026-05-01T00:30:00+02:00', '2026-04-30T22:30:00.000Z'],
    ['2026-05-01T23:30:00-05:30', '2026-05-02T05:00:00.000Z'],
    ['2024-02-29T00:00:00Z', '2024-02-29T00:00:00.000Z'],
    ['2026-02-29T00:00:00Z', undefined],
    ['2026-02-30T00:00:00Z', undefined],
    ['2026-13-01T00:00:00Z', undefined],
    ['2026-04-31T00:00:00Z', undefined],
    ['2026-05-01T24:00:00Z', undefined],
    ['2026-05-01T10:60:00Z', undefined],
    ['2026-05-01T10:00:60Z', undefined],
    ['2026-05-01T10:00:00+24:00', undefined],
    ['2026-05-01 10:00:00Z', undefined],
    ['2026-05-01t10:00:00z', undefined],
    ['1746093600', undefined],
    ['7d', undefined],
  ])('%s', (text, iso) => {
    expect(parseDateTime(text)?.toISOString()).toBe(iso);
  });
});

describe("the subscription's credential", () => {
  it.each<[string, string[], string[], string | undefined, string | undefined]>([
    ['osn scope, every client', ['osn'], ['C1'], undefined, undefined],
    ['osn scope, no client yet, every client', ['order_status', 'osn'], [], undefined, undefined],
    ['osn scope, a linked client', ['osn'], ['C1', 'C2'], 'C2', undefined],
    ['order status only', ['order_status'], ['C1'], undefined, 'credential acme lacks the osn scope (shipment notifications): see ossn credentials set-scopes'],
    ['a client not linked', ['osn'], ['C1'], 'C9', 'credential acme is not linked to C9: see ossn credentials link'],
  ])('%s', (_case, scopes, clientIds, clientId, problem) => {
    expect(credentialProblem({ id: 'acme', scopes: scopes as ('osn' | 'order_status')[], clientIds }, clientId)).toBe(problem);
  });
});

const subscription = (id: string, credentialId: string, clientId: string | undefined, url: string): PushSubscription => ({
  id,
  credentialId,
  ...(clientId === undefined ? {} : { clientId }),
  url,
  receiverId: 'r',
  enabled: true,
  createdAt: now,
  cursorStart: now,
});

describe('overlapping subscriptions', () => {
  const url = 'https://osn.acme.example/receiver';
  const existing = [subscription('ps-all', 'acme', undefined, url), subscription('ps-c1', 'globex', 'C1', url)];
  it.each<[string, string, string | undefined, string, string | undefined]>([
    ['every client beside every client', 'acme', undefined, url, 'ps-all'],
    ['one client beside every client', 'acme', 'C1', url, 'ps-all'],
    ['every client beside one client', 'globex', undefined, url, 'ps-c1'],
    ['the same client', 'globex', 'C1', url, 'ps-c1'],
    ['another client', 'globex', 'C2', url, undefined],
    ['another URL', 'acme', undefined, 'https://osn.acme.example/other', undefined],
    ['another credential', 'initech', undefined, url, undefined],
  ])('%s', (_case, credentialId, clientId, candidateUrl, found) => {
    expect(overlappingSubscription({ credentialId, clientId, url: candidateUrl }, existing)?.id).toBe(found);
  });
});

describe('subscription ids', () => {
  it('are ps- and 10 letters of lower-case base32, without i, l, o or u, and differ', () => {
    const ids = Array.from({ length: 2_000 }, newSubscriptionId);
    for (const id of ids) expect(id).toMatch(/^ps-[0-9a-hjkmnp-tv-z]{10}$/);
    expect(new Set(ids).size).toBe(ids.length);
    // Every letter comes up: the alphabet is used whole.
    expect(new Set(ids.flatMap((id) => [...id.slice(3)])).size).toBe(32);
  });
});

describe('a subscription as listed', () => {
  it('shows every field and the password only as set or none', () => {
    const sealed = { cipher: 'aes-256-gcm', keyId: '0123456789abcdef', iv: 'aXYtaXYtaXYtaXYt', ciphertext: 'Y2lwaGVydGV4dA==', tag: 'dGFnLXRhZy10YWctdGFnLQ==' } as const;
    const withPassword = { ...subscription('ps-1', 'acme', 'C1', 'https://r.example/'), receiverPassword: sealed, customerIdentifier: 'ACME' };
    const view = subscriptionView(withPassword);
    expect(view).toEqual({
      id: 'ps-1',
      credentialId: 'acme',
      clientId: 'C1',
      url: 'https://r.example/',
      receiverId: 'r',
      password: 'set',
      customerIdentifier: 'ACME',
      enabled: true,
      createdAt: now.toISOString(),
      cursorStart: now.toISOString(),
    });
    for (const part of [sealed.ciphertext, sealed.iv, sealed.tag]) expect(JSON.stringify(view)).not.toContain(part);
    expect(subscriptionView(subscription('ps-2', 'acme', undefined, 'https://r.example/'))).toMatchObject({ clientId: null, password: 'none', customerIdentifier: null });
  });
});
