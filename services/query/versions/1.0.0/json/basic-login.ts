// The 1.0.0 JSON routes' login, read from HTTP Basic credentials: none sent is 401 (missing), an
// unreadable one a failed login, a field longer than any stored one 400. The access step
// (../../../access/authorize.ts) checks it.
import type { Login } from '../../../access/authorize.js';
import { LoginRefused } from '../../../access/refusals.js';
import { readBasicAuth } from '../../../protocol/json/basic-auth.js';
import { BadRequestError, MissingCredentialsError, tooLong } from './json-errors.js';
import { fieldTooLong } from '../../../protocol/field-length.js';

export function readBasicLogin(header: string | undefined): Login {
  const login = readBasicAuth(header);
  if (login === undefined) throw new MissingCredentialsError();
  if (login === 'malformed') throw new LoginRefused();
  for (const field of ['id', 'password'] as const) {
    if (fieldTooLong(login[field])) throw new BadRequestError(tooLong(field, 'Credential field'));
  }
  return login;
}
