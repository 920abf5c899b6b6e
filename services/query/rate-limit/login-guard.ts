// Failed logins per source address and per credential id, for both protocols. Before a password
// is checked against the store, the request reserves one failed login of its address and one of
// the id; the authenticator gives them back only when the check found the credential. The count is
// thus taken atomically before the check: parallel guesses cannot pass the limit, an address or id
// that used up its failures is refused (429) before anything else, whatever the password (a pair
// verified moments ago included: a lockout is no oracle), and a request that is aborted, times out
// or fails stays counted. A pair verified moments ago (the authenticator's cache) reserves nothing:
// a partner's polls are no guesses.
import { isIPv6 } from 'node:net';
import type { FastifyRequest } from 'fastify';
import type { GiveBackLogin, LoginGuard } from '../../domain/credentials/credential.js';
import type { RequestLimits } from './request-limits.js';

/**
 * The address failed logins are counted under: an IPv4 address whole, an IPv6 one by its /64 (the
 * least a site is given: its 2^64 addresses are one guesser's). IPv4-mapped IPv6 counts as IPv4, and
 * so does an address of a NAT64 prefix (the well-known 64:ff9b::/96, and the local-use
 * 64:ff9b:1::/48 read as /96, its usual length): each is one IPv4 client, not one site.
 */
export function loginAddressKey(ip: string): string {
  if (!isIPv6(ip)) return ip;
  // A trailing dotted quad is the last two groups.
  const written = ip.replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/, (_quad, a: string, b: string, c: string, d: string) =>
    [(Number(a) << 8) | Number(b), (Number(c) << 8) | Number(d)].map((group) => group.toString(16)).join(':'),
  );
  const [head = '', tail = ''] = written.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = (written.includes('::') ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right] : left).map((g) => parseInt(g, 16));
  const mapped = groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff;
  const nat64 = groups[0] === 0x64 && groups[1] === 0xff9b && (groups[2] === 1 || groups.slice(2, 6).every((g) => g === 0));
  if (mapped || nat64) {
    const [high = 0, low = 0] = groups.slice(6);
    return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
  }
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}

/** What reserves a failed login for a request's password check (see Authenticator.verify). */
export function guardLogins(limits: Pick<RequestLimits, 'reserveLogin' | 'refuseLockedLogin'>): (request: FastifyRequest) => LoginGuard {
  return (request) => {
    // Read now: once the client is gone, its socket no longer tells its address.
    const address = loginAddressKey(request.ip);
    return {
      refuseLocked: (id) => limits.refuseLockedLogin(address, id),
      reserve: async (id) => reservation(request, await limits.reserveLogin(address, id)),
    };
  };
}

/** Gives back once at most, and never throws: a failure leaves the counts one too high until their windows end. */
function reservation(request: FastifyRequest, giveBack: () => Promise<void>): GiveBackLogin {
  let given = false;
  return () => {
    if (given) return;
    given = true;
    // Debug only: the count stays one too high until its window ends, which is no operator's concern.
    giveBack().catch((failure: unknown) => request.log.debug({ err: failure }, 'login reservation not given back'));
  };
}
