// A receiver's Retry-After, honoured by the retries of docs/design/osn-2.1.0.md §2: delay-seconds
// or an HTTP-date. A date is read against the answer's own Date header when it has one, so that a
// receiver whose clock differs from ours is still waited for as long as it asked.

/** When the receiver asks to be tried again, or undefined when the header is absent or not one of the two forms. */
export function retryAfterInstant(value: string | undefined, receivedAt: Date, dateHeader?: string): Date | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) {
    // Beyond any maximum age; a longer string of digits reads as no bound worth keeping.
    const seconds = Math.min(Number(text), 10 * 365 * 24 * 3600);
    return new Date(receivedAt.getTime() + seconds * 1000);
  }
  const at = httpDate(text);
  if (at === undefined) return undefined;
  const serverNow = dateHeader === undefined ? undefined : httpDate(dateHeader.trim());
  return new Date(serverNow === undefined ? at : receivedAt.getTime() + (at - serverNow));
}

/** IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`) and the obsolete RFC 850 and asctime forms, in ms. */
function httpDate(text: string): number | undefined {
  const imf = /^[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/;
  const rfc850 = /^[A-Za-z]+, \d{2}-[A-Za-z]{3}-\d{2} \d{2}:\d{2}:\d{2} GMT$/;
  const asctime = /^[A-Za-z]{3} [A-Za-z]{3} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}$/;
  if (!imf.test(text) && !rfc850.test(text) && !asctime.test(text)) return undefined;
  // asctime carries no zone: it is GMT.
  const ms = Date.parse(asctime.test(text) ? `${text} GMT` : text);
  return Number.isNaN(ms) ? undefined : ms;
}
