// A push subscription: one partner receiver that ossn sends a credential's ship notifications
// to (PromoStandards OSN 2.1.0 sendAdvanceShipmentNotification; see
// docs/operations.md, Push subscriptions). Without a client it covers every client the credential
// is linked to when each notification is sent (links added later included); with one, that
// client only, while linked. One notification per client and purchase order. The rules here are
// pure: the command line and the pusher judge alike.
import { randomBytes } from 'node:crypto';
import type { PushSubscriptionRecord } from '../../adapters/mongodb/push-subscriptions.js';
import type { Credential } from '../credentials/credential.js';
import { judgeReceiverUrl } from './receiver-url.js';

export type PushSubscription = PushSubscriptionRecord;

/** What the operator asks for (`ossn push add`), as typed. */
export interface SubscriptionRequest {
  credentialId: string;
  clientId?: string;
  url: string;
  receiverId: string;
  customerIdentifier?: string;
  /** `--from`: a date and time with its zone; absent, the time it is added. */
  from?: string;
  allowHttp?: boolean;
}

/** A request that holds: its fields as stored; no cursorStart without --from (the time it is added). */
export type JudgedRequest = Pick<PushSubscription, 'credentialId' | 'clientId' | 'url' | 'receiverId' | 'customerIdentifier' | 'allowHttp'> & { cursorStart?: Date };

/** As every login field of the protocol, and as a credential's id: 1 to 64 characters. */
const MAX_FIELD_LENGTH = 64;

const length = (text: string) => [...text].length;
// eslint-disable-next-line no-control-regex
const hasControl = (text: string) => /[\u0000-\u001f\u007f]/.test(text);

/** An id: 1 to 64 characters, no control character, no surrounding whitespace. */
function idProblem(text: string, what: string): string | undefined {
  if (length(text) < 1 || length(text) > MAX_FIELD_LENGTH || hasControl(text) || text.trim() !== text) {
    return `${what} must be 1 to ${MAX_FIELD_LENGTH} characters, without control characters or surrounding whitespace`;
  }
  return undefined;
}

/** An XML token (xs:token, as the OSN schema types it): no tab or line break, no surrounding or doubled spaces. */
function tokenProblem(text: string, what: string): string | undefined {
  if (length(text) < 1 || length(text) > MAX_FIELD_LENGTH || hasControl(text) || text.trim() !== text || text.includes('  ')) {
    return `${what} must be 1 to ${MAX_FIELD_LENGTH} characters, without control characters, surrounding or doubled spaces (an XML token)`;
  }
  return undefined;
}

const dateTime = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|([+-])(\d{2}):(\d{2}))$/;

/** The instant of an ISO 8601 date and time with its zone (`2026-05-01T10:00:00Z`, `…+02:00`), or undefined. */
export function parseDateTime(text: string): Date | undefined {
  const m = dateTime.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second = 0] = m.slice(1, 7).map((part) => Number(part ?? 0)) as number[] as [number, number, number, number, number, number];
  const ms = Number((m[7] ?? '0').padEnd(3, '0').slice(0, 3));
  const [offsetHours, offsetMinutes] = [Number(m[10] ?? 0), Number(m[11] ?? 0)];
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth || hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59) return undefined;
  const offsetMs = (m[9] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes) * 60_000;
  return new Date(Date.UTC(year, month - 1, day, hour, minute, second, ms) - offsetMs);
}

/** The request's fields as stored, or every problem of it (one line each), judged at `now` (--from may not be later). */
export function judgeSubscriptionRequest(request: SubscriptionRequest, now: Date): { judged: JudgedRequest } | { problems: string[] } {
  const problems: string[] = [];
  const url = judgeReceiverUrl(request.url, { allowHttp: request.allowHttp });
  if ('problem' in url) problems.push(url.problem);
  for (const problem of [
    idProblem(request.credentialId, 'a credential id'),
    request.clientId === undefined ? undefined : idProblem(request.clientId, 'a client id (--client)'),
    tokenProblem(request.receiverId, 'the receiver id (--id)'),
    request.customerIdentifier === undefined ? undefined : tokenProblem(request.customerIdentifier, 'the customer identifier (--customer-identifier)'),
  ]) {
    if (problem !== undefined) problems.push(problem);
  }
  let cursorStart: Date | undefined;
  if (request.from !== undefined) {
    const from = parseDateTime(request.from);
    if (from === undefined) problems.push(`--from must be a date and time with its zone, like 2026-05-01T10:00:00Z; got "${request.from}"`);
    else if (from.getTime() > now.getTime()) problems.push(`--from ${request.from} is in the future: give a past time to push what came since, or leave --from out (from now)`);
    else cursorStart = from;
  }
  if (problems.length > 0 || 'problem' in url) return { problems };
  const { credentialId, clientId, receiverId, customerIdentifier } = request;
  // Kept only where it matters, so that the pusher judges the URL again by the same rule before each send.
  const allowHttp = request.allowHttp === true && new URL(url.url).protocol === 'http:' ? true : undefined;
  return { judged: { credentialId, clientId, url: url.url, receiverId, customerIdentifier, cursorStart, ...(allowHttp ? { allowHttp } : {}) } };
}

/**
 * Why `credential` cannot have the subscription, or undefined: its partner must be allowed
 * shipment notifications (scope osn), and a subscription for one client must be for one it is
 * linked to (the tenant boundary: docs/operations.md, Credentials).
 */
export function credentialProblem(credential: Credential, clientId: string | undefined): string | undefined {
  if (!credential.scopes.includes('osn')) return `credential ${credential.id} lacks the osn scope (shipment notifications): see ossn credentials set-scopes`;
  if (clientId !== undefined && !credential.clientIds.includes(clientId)) return `credential ${credential.id} is not linked to ${clientId}: see ossn credentials link`;
  return undefined;
}

/**
 * A subscription of `existing` that would send the candidate's notifications too: the same
 * credential and URL, and a client in common (one of them for every client, or both for one).
 */
export function overlappingSubscription(candidate: Pick<PushSubscription, 'credentialId' | 'clientId' | 'url'>, existing: readonly PushSubscription[]): PushSubscription | undefined {
  return existing.find(
    (s) =>
      s.credentialId === candidate.credentialId &&
      s.url === candidate.url &&
      (s.clientId === undefined || candidate.clientId === undefined || s.clientId === candidate.clientId),
  );
}

/** Crockford's base32 in lower case: no i, l, o or u to misread; 32 letters, so a byte's low 5 bits pick one evenly. */
const idAlphabet = '0123456789abcdefghjkmnpqrstvwxyz';

/** A new subscription's id: `ps-` and 10 random letters (50 bits), short enough to type. */
export function newSubscriptionId(): string {
  return `ps-${[...randomBytes(10)].map((byte) => idAlphabet[byte & 31]).join('')}`;
}

/** A subscription as `ossn push list` shows it: its password only as set or none. */
export interface SubscriptionView {
  id: string;
  credentialId: string;
  /** null: every client the credential is linked to. */
  clientId: string | null;
  url: string;
  receiverId: string;
  password: 'set' | 'none';
  customerIdentifier: string | null;
  enabled: boolean;
  createdAt: string;
  cursorStart: string;
}

export function subscriptionView(s: PushSubscription): SubscriptionView {
  return {
    id: s.id,
    credentialId: s.credentialId,
    clientId: s.clientId ?? null,
    url: s.url,
    receiverId: s.receiverId,
    password: s.receiverPassword === undefined ? 'none' : 'set',
    customerIdentifier: s.customerIdentifier ?? null,
    enabled: s.enabled,
    createdAt: s.createdAt.toISOString(),
    cursorStart: s.cursorStart.toISOString(),
  };
}
