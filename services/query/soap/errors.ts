// The errors the SOAP plugin turns into faults. Anything else becomes "Internal error".

/** A soap:Client fault with this faultstring (HTTP 500, as the fault table says). */
export class SoapClientFault extends Error {
  override readonly name = 'SoapClientFault';
}

export const MALFORMED_REQUEST = 'Malformed SOAP request';

/** Thrown by the rate-limit hook: soap:Server fault, HTTP 429, Retry-After in whole seconds. */
export class RateLimitedError extends Error {
  override readonly name = 'RateLimitedError';
  constructor(readonly retryAfterSeconds: number) {
    super('Rate limit exceeded');
  }
}
