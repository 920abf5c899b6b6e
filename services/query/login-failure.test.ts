// A failed login is told from other errors by its code (OSSN_LOGIN_INVALID), never by its text.
import { describe, expect, it } from 'vitest';
import { ErrorCodes } from '../../contracts/errors/ossn-error.js';
import { isLoginFailure } from './app.js';
import { BadRequestError, InvalidCredentialsError, MissingCredentialsError, ScopeForbiddenError } from './json/json-errors.js';
import { SoapClientFault } from './soap/soap-faults.js';

describe('isLoginFailure', () => {
  it('is true for the failed logins of both protocols', () => {
    expect(isLoginFailure(new InvalidCredentialsError())).toBe(true);
    expect(isLoginFailure(new SoapClientFault('Invalid id or password', ErrorCodes.LOGIN_INVALID))).toBe(true);
  });

  it('goes by the code, not the text: the same words on a bad request are not a failed login', () => {
    expect(isLoginFailure(new SoapClientFault('Invalid id or password'))).toBe(false);
    expect(isLoginFailure(new BadRequestError('Invalid id or password'))).toBe(false);
    expect(isLoginFailure(new Error('Invalid id or password'))).toBe(false);
  });

  it('is false for the other refusals', () => {
    expect(isLoginFailure(new MissingCredentialsError())).toBe(false);
    expect(isLoginFailure(new ScopeForbiddenError('osn'))).toBe(false);
    expect(isLoginFailure(new SoapClientFault('Credential not permitted for scope: osn', ErrorCodes.SCOPE_FORBIDDEN))).toBe(false);
  });
});
