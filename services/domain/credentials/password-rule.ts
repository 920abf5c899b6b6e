// The one rule of what a partner's password is, for the operator who sets it (`ossn credentials`)
// and for the service that reads it from a request, SOAP or JSON alike.

/** Long enough that guessing at the failed-login limit's pace never gets anywhere. */
export const MIN_PASSWORD_LENGTH = 16;
/** As every other login field: at most 64 characters. */
export const MAX_PASSWORD_LENGTH = 64;

/**
 * A password as a request carries it: surrounding whitespace is no part of it. SOAP's XML reading
 * drops it anyway (a pretty-printed `<password>`), so JSON's Basic auth reads the same password.
 */
export function sentPassword(text: string): string {
  return text.trim();
}

/** Why a new password cannot be set, or undefined when it can. Characters are counted as Unicode code points. */
export function passwordProblem(password: string): string | undefined {
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH || length > MAX_PASSWORD_LENGTH) {
    return `the password must be ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters (--generate makes one)`;
  }
  if (sentPassword(password) !== password) return 'the password must not begin or end with whitespace (partners could not send it)';
  return undefined;
}
