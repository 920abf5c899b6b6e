// Sends one sendAdvanceShipmentNotification to a partner's receiver and hands back what came, as
// it came: judging it is the pusher's (services/pusher/delivery-outcome.ts). One receiver down
// holds up no other (docs/design/osn-2.1.0.md §2): a deadline covers the whole exchange and the
// answer read is bounded.
//
// Node's built-in fetch (undici inside), not node:http: one call covers DNS, connect, TLS, headers
// and body under one AbortSignal (node:http needs a timer per phase and https apart), it keeps
// connections alive per origin, keeps no cookies, decodes gzip and deflate, and with redirect
// 'manual' hands a 3xx back as it is.
//
// Nothing here holds or repeats the request body (it carries the receiver's password, §2): a
// failure says what happened in words of its own, never a library's error object, and no URL.

/** The SOAPAction of sendAdvanceShipmentNotification in the 2.1.0 WSDL's binding (quoted, as SOAP 1.1 writes it). */
export const SEND_ADVANCE_SHIPMENT_NOTIFICATION_ACTION = '"sendAdvanceShipmentNotification"';

/** An answer is a few hundred bytes; a MiB leaves room for any list of service messages and bounds the memory a receiver can make us spend. */
export const DEFAULT_MAX_ANSWER_BYTES = 1024 * 1024;

/**
 * A receiver stores one notification and answers: well under a second. 30 s covers a slow TLS
 * handshake and a busy receiver, and bounds how long one delivery holds one of its receiver's slots.
 */
export const DEFAULT_SEND_TIMEOUT_MS = 30_000;

/** Failures, and bodies a receiver sends back in them, are cut to this many characters where they are quoted. */
const QUOTED_CHARS = 256;

export interface SendRequest {
  /** The receiver's endpoint, http or https, with no credentials in it. */
  url: string;
  /** The SOAP envelope, UTF-8. */
  body: string;
  /** One deadline for connect, headers and body together. */
  timeoutMs: number;
  /** The most answer bytes read (after content decoding); more is an `oversized` failure. */
  maxAnswerBytes?: number;
  /** The caller's stop: aborting it rejects the send with the signal's reason. */
  signal?: AbortSignal;
}

/** What a receiver answered, read whole (within the bound). */
export interface RawAnswer {
  kind: 'answer';
  status: number;
  /** Header names in lower case; repeated headers joined by ", ". */
  headers: Record<string, string>;
  body: string;
  /** When the headers came: a Retry-After in seconds counts from here. */
  receivedAt: Date;
}

/** No answer to judge, and why. */
export type TransportFailure =
  | { kind: 'timeout'; timeoutMs: number; message: string }
  | { kind: 'connection'; message: string }
  | { kind: 'oversized'; status: number; maxAnswerBytes: number; message: string }
  | { kind: 'unsendable'; message: string };

export type SendResult = RawAnswer | TransportFailure;

/** The reason the deadline aborts with, told apart from the caller's own. */
class DeadlinePassed extends Error {
  override readonly name = 'DeadlinePassed';
}

/**
 * Posts the notification and reads the answer. Resolves in every case but one: the caller's
 * signal aborting, which rejects with its reason (the caller knows why it stopped).
 */
export async function sendNotification(request: SendRequest): Promise<SendResult> {
  const { timeoutMs, signal } = request;
  const maxAnswerBytes = request.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES;
  signal?.throwIfAborted();
  const unsendable = checkUrl(request.url);
  if (unsendable) return unsendable;

  // One controller for both stops. A plain timer, not AbortSignal.timeout combined by
  // AbortSignal.any: on Node 20 such a combined signal can be collected before the timeout fires
  // (services/query/rate-limit/lookups-in-flight.ts says the same), which would leave a send with
  // no deadline.
  const exchange = new AbortController();
  const deadline = setTimeout(() => exchange.abort(new DeadlinePassed()), timeoutMs);
  const onCallerAbort = () => exchange.abort(signal?.reason);
  signal?.addEventListener('abort', onCallerAbort, { once: true });
  try {
    const response = await fetch(request.url, {
      method: 'POST',
      headers: {
        'content-type': 'text/xml; charset=utf-8',
        soapaction: SEND_ADVANCE_SHIPMENT_NOTIFICATION_ACTION,
        accept: 'text/xml',
        'user-agent': 'ossn-pusher',
      },
      body: request.body,
      // A receiver is registered at the URL that answers (§2): a 3xx is judged, never followed,
      // so the password is never posted to an address nobody registered.
      redirect: 'manual',
      signal: exchange.signal,
    });
    const receivedAt = new Date();
    const bytes = await readBounded(response, maxAnswerBytes);
    if (bytes === undefined) {
      // The rest is not read: aborting closes the connection, so the receiver's socket is released.
      exchange.abort(new Error('answer larger than the bound'));
      return { kind: 'oversized', status: response.status, maxAnswerBytes, message: `the answer is larger than ${maxAnswerBytes} bytes` };
    }
    return { kind: 'answer', status: response.status, headers: Object.fromEntries(response.headers), body: decode(bytes, response.headers.get('content-type')), receivedAt };
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    if (exchange.signal.reason instanceof DeadlinePassed) return { kind: 'timeout', timeoutMs, message: `no whole answer within ${timeoutMs} ms` };
    return { kind: 'connection', message: describeConnectionError(error) };
  } finally {
    clearTimeout(deadline);
    signal?.removeEventListener('abort', onCallerAbort);
  }
}

/** Refuses before any connection what must not be sent, without repeating the URL (it may hold a password). */
function checkUrl(url: string): TransportFailure | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { kind: 'unsendable', message: 'the receiver URL is not a URL' };
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return { kind: 'unsendable', message: `the receiver URL's scheme is ${parsed.protocol.slice(0, 16)}, not http or https` };
  // fetch would refuse it too, but with the whole URL in its message.
  if (parsed.username !== '' || parsed.password !== '') return { kind: 'unsendable', message: 'the receiver URL holds credentials: they are never sent in a URL' };
  return undefined;
}

/** The answer's bytes, or undefined as soon as they pass the bound (nothing more is read). */
async function readBounded(response: Response, maxBytes: number): Promise<Uint8Array | undefined> {
  if (!response.body) return new Uint8Array();
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) return undefined;
    chunks.push(value);
  }
  return Buffer.concat(chunks, total);
}

/** The body as text, in the charset the answer names when Node knows it, UTF-8 otherwise; bytes that do not decode become U+FFFD. */
function decode(bytes: Uint8Array, contentType: string | null): string {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? '')?.[1] ?? 'utf-8';
  try {
    return new TextDecoder(charset).decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}

/** The innermost cause's code and message (fetch's own is only "fetch failed"), cut short. */
function describeConnectionError(error: unknown): string {
  let inner: unknown = error;
  while (inner instanceof Error && inner.cause instanceof Error) inner = inner.cause;
  if (inner instanceof AggregateError && inner.errors[0] instanceof Error) inner = inner.errors[0];
  if (!(inner instanceof Error)) return 'the connection failed';
  const code = (inner as { code?: unknown }).code;
  const text = [typeof code === 'string' ? code : undefined, inner.message].filter((part) => part).join(': ');
  return `the connection failed: ${(text || inner.name).slice(0, QUOTED_CHARS)}`;
}
