// HTTP Basic credentials (RFC 7617): id as user name, password as password.
/** The challenge of a 401: which scheme to answer with. */
export const BASIC_REALM = 'Basic realm="ossn"';

export interface BasicLogin {
  id: string;
  password: string;
}

/** The login in an Authorization header; undefined when none is sent; 'malformed' when it cannot be read. */
export function readBasicAuth(header: string | undefined): BasicLogin | 'malformed' | undefined {
  const match = header === undefined ? null : /^basic(?:\s+(.*))?$/is.exec(header.trim());
  if (!match) return undefined;
  const token = (match[1] ?? '').trim();
  if (token === '') return undefined;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(token)) return 'malformed';
  const decoded = Buffer.from(token, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return 'malformed';
  return { id: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}
