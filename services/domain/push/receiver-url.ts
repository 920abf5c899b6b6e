// Where ossn may send a partner's ship notifications (docs/operations.md, Push subscriptions): the
// receiver's password and the notifications travel in the request, so only over TLS, except to
// this machine (a receiver under test beside ossn) or when the operator asks for plain http for a
// trial. The password is ossn's to send in the envelope: a URL carrying a user and password is
// refused, as is a fragment (never sent to a server: a URL with one is a mistake).
import { isIP } from 'node:net';

export interface ReceiverUrlOptions {
  /** `--allow-http`: plain http to any host, for a trial. */
  allowHttp?: boolean;
}

/** Whether `hostname` (as URL gives it: IPv6 in brackets) is this machine: localhost, 127.0.0.0/8, ::1. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  // localhost itself only: a name under .localhost may be resolved by DNS, elsewhere.
  if (host === 'localhost') return true;
  if (host === '[::1]') return true;
  return isIP(host) === 4 && host.startsWith('127.');
}

/** The receiver URL, normalised as stored (`new URL(text).href`), or the one problem found. */
export function judgeReceiverUrl(text: string, { allowHttp = false }: ReceiverUrlOptions = {}): { url: string } | { problem: string } {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { problem: 'the receiver URL is not a URL (https://host/path)' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { problem: `the receiver URL must be https, got ${url.protocol}` };
  // Never quoted back: the text may hold a password.
  if (url.username !== '' || url.password !== '') {
    return { problem: 'the receiver URL must not carry a user or password (user:pass@): the receiver password is read from stdin' };
  }
  if (url.hash !== '' || text.includes('#')) return { problem: 'the receiver URL must not have a fragment (#...): it is never sent to the receiver' };
  if (url.protocol === 'http:' && !allowHttp && !isLoopbackHost(url.hostname)) {
    return { problem: 'the receiver URL must be https (http only to this machine: localhost, 127.0.0.0/8, ::1; or with --allow-http, for a trial)' };
  }
  return { url: url.href };
}
