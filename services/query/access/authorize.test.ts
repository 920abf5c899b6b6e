// The one access step every partner request takes (SOAP and JSON, 1.0.0 and 2.0.0), and the kinds
// of refusal each protocol answers in its own words.
import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { ACCOUNTS, FakeAuthenticator } from '../../../test/support/fake-ports.js';
import { PasswordChecksBusyError } from '../../domain/credentials/check-slots.js';
import type { Credential } from '../../domain/credentials/credential.js';
import { RateLimitedError } from '../rate-limit/rate-limited-error.js';
import { authorize } from './authorize.js';
import { LoginRefused, refusalOf, ScopeRefused } from './refusals.js';

function counting() {
  const admitted: string[] = [];
  return { admitted, admit: (credential: Credential) => void admitted.push(credential.id) };
}

describe('authorize', () => {
  it('lets a credential in with its scope, counted by the limit once', async () => {
    const { admitted, admit } = counting();
    const credential = await authorize({ id: 'both', password: 'secret' }, 'osn', { authenticator: new FakeAuthenticator(ACCOUNTS), admit });
    expect(credential.id).toBe('both');
    expect(admitted).toEqual(['both']);
  });

  it('counts a known credential against its limit before its scope is checked, so a refusal for scope still costs a request', async () => {
    const { admitted, admit } = counting();
    await expect(authorize({ id: 'statusOnly', password: 'secret' }, 'osn', { authenticator: new FakeAuthenticator(ACCOUNTS), admit })).rejects.toEqual(new ScopeRefused('osn'));
    expect(admitted).toEqual(['statusOnly']);
    // Over its limit, the same request is refused as rate-limited, not for its scope.
    const overLimit = () => {
      throw new RateLimitedError(7);
    };
    await expect(authorize({ id: 'statusOnly', password: 'secret' }, 'osn', { authenticator: new FakeAuthenticator(ACCOUNTS), admit: overLimit })).rejects.toBeInstanceOf(RateLimitedError);
  });

  it('refuses a wrong password before any limit is counted', async () => {
    const { admitted, admit } = counting();
    await expect(authorize({ id: 'both', password: 'wrong' }, 'osn', { authenticator: new FakeAuthenticator(ACCOUNTS), admit })).rejects.toBeInstanceOf(LoginRefused);
    expect(admitted).toEqual([]);
  });

  it('refuses no login as a failed one without asking the store', async () => {
    const authenticator = new FakeAuthenticator(ACCOUNTS);
    await expect(authorize(undefined, 'order_status', { authenticator })).rejects.toBeInstanceOf(LoginRefused);
    expect(authenticator.calls).toEqual([]);
  });
});

describe('refusalOf', () => {
  const request = () => {
    const lines: string[] = [];
    return { lines, request: { log: { debug: (line: string) => void lines.push(line) } } as unknown as FastifyRequest };
  };

  it('tells each refusal of the access step apart, and no other error', () => {
    const { request: r } = request();
    expect(refusalOf(new RateLimitedError(3), r)).toEqual({ kind: 'rateLimited', retryAfterSeconds: 3 });
    expect(refusalOf(new LoginRefused(), r)).toEqual({ kind: 'loginFailed' });
    expect(refusalOf(new ScopeRefused('osn'), r)).toEqual({ kind: 'forbidden', scope: 'osn' });
    expect(refusalOf(new Error('boom'), r)).toBeUndefined();
  });

  it('logs a busy refusal at debug only, once', () => {
    const { lines, request: r } = request();
    expect(refusalOf(new PasswordChecksBusyError(), r)).toEqual({ kind: 'busy' });
    expect(lines).toEqual(['password checks at their bound: login refused as busy']);
  });
});
