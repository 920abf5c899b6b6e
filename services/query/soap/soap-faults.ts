// The errors the SOAP plugin turns into faults. Anything else becomes "Internal error".
import { ErrorCodes, OssnError } from '../../../contracts/errors/ossn-error.js';

/**
 * A soap:Client fault with this faultstring (HTTP 500, as the fault table says). Its code tells a
 * failed login and a missing scope from a bad request, so that nothing needs to read the text.
 */
export class SoapClientFault extends OssnError {
  override readonly name = 'SoapClientFault';
  constructor(message: string, code: typeof ErrorCodes.LOGIN_INVALID | typeof ErrorCodes.SCOPE_FORBIDDEN | typeof ErrorCodes.BAD_REQUEST = ErrorCodes.BAD_REQUEST) {
    super(code, message);
  }
}

export const MALFORMED_REQUEST = 'Malformed SOAP request';

// Moved beside the rate limit, which the JSON endpoints share; re-exported for the SOAP code.
export { RateLimitedError } from '../rate-limit/rate-limited-error.js';
