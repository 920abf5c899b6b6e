// The errors the SOAP plugin turns into faults. Anything else becomes "Internal error".

/** A soap:Client fault with this faultstring (HTTP 500, as the fault table says). */
export class SoapClientFault extends Error {
  override readonly name = 'SoapClientFault';
}

export const MALFORMED_REQUEST = 'Malformed SOAP request';

// Moved beside the rate limit, which the JSON endpoints share; re-exported for the SOAP code.
export { RateLimitedError } from '../rate-limit/rate-limited-error.js';
