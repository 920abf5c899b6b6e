// The errors of the SOAP code that the plugin turns into Client faults (a RateLimitedError, shared with the
// JSON endpoints, is in ../rate-limit/). Anything else becomes "Internal error".
import { ErrorCodes, OssnError } from '../../../../contracts/errors/ossn-error.js';

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
