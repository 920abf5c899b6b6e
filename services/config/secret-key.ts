// The operator's key for what ossn keeps secret but must read back: a partner receiver's password,
// sent with each push (docs/operations.md, Push subscriptions). Given in OSSN_SECRET_KEY or in
// the file OSSN_SECRET_KEY_FILE names (a mounted secret), never both; read once at start, and
// never echoed: a refusal says what is wrong with it, not what it is.
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { inspect } from 'node:util';
import type { EnvReader } from './env.js';

/** AES-256: the key is 32 bytes. */
export const SECRET_KEY_BYTES = 32;

export const SECRET_KEY_VARIABLE = 'OSSN_SECRET_KEY';
export const SECRET_KEY_FILE_VARIABLE = 'OSSN_SECRET_KEY_FILE';

/**
 * The key, held privately: printing, logging or serialising it shows its id only. The id (16 hex
 * digits of an HMAC of the key, which tells nothing of the key) is stored beside what the key
 * sealed, so a value sealed with another key is told apart from a damaged one, and keys can be
 * rotated (several held, each value opened with its own).
 */
export class SecretKey {
  readonly #bytes: Buffer;
  readonly id: string;

  constructor(bytes: Buffer) {
    if (bytes.length !== SECRET_KEY_BYTES) throw new RangeError(`a secret key is ${SECRET_KEY_BYTES} bytes, not ${bytes.length}`);
    this.#bytes = Buffer.from(bytes);
    this.id = createHmac('sha256', this.#bytes).update('ossn secret key id').digest('hex').slice(0, 16);
  }

  /** The key's bytes, for the cipher only (a copy: nothing outside can change the key). */
  bytes(): Buffer {
    return Buffer.from(this.#bytes);
  }

  toJSON(): { id: string } {
    return { id: this.id };
  }

  toString(): string {
    return `SecretKey(${this.id})`;
  }

  [inspect.custom](): string {
    return this.toString();
  }
}

const keyForm = `${SECRET_KEY_BYTES} bytes in base64 (openssl rand -base64 32) or in hex (64 hex digits)`;

/**
 * The key written as text: hex when it is hex digits only, base64 (standard or URL-safe, padded or
 * not) otherwise. A problem (never quoting the text) when it is neither or not 32 bytes.
 */
export function decodeSecretKey(text: string): { key: SecretKey } | { problem: string } {
  const value = text.trim();
  let bytes: Buffer;
  let form: string;
  if (/^[0-9a-fA-F]+$/.test(value) && value.length % 2 === 0) {
    bytes = Buffer.from(value, 'hex');
    form = 'hex';
  } else if (/^[A-Za-z0-9+/]+={0,2}$/.test(value) || /^[A-Za-z0-9_-]+={0,2}$/.test(value)) {
    bytes = Buffer.from(value.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    form = 'base64';
  } else {
    return { problem: `must be ${keyForm}; it is neither` };
  }
  if (bytes.length !== SECRET_KEY_BYTES) return { problem: `must be ${keyForm}; it holds ${bytes.length} bytes (read as ${form})` };
  return { key: new SecretKey(bytes) };
}

/**
 * The key from OSSN_SECRET_KEY or OSSN_SECRET_KEY_FILE, its problems added to `r`'s (the key is
 * required: undefined only with a problem recorded). Both variables are read every time.
 */
export function readSecretKey(r: EnvReader): SecretKey | undefined {
  const inline = r.optionalString(SECRET_KEY_VARIABLE);
  const file = r.optionalString(SECRET_KEY_FILE_VARIABLE);
  if (inline !== undefined && file !== undefined) {
    r.problems.push(`${SECRET_KEY_VARIABLE} and ${SECRET_KEY_FILE_VARIABLE} are both set: set one of them`);
    return undefined;
  }
  if (inline === undefined && file === undefined) {
    r.problems.push(`${SECRET_KEY_VARIABLE} is required: set ${SECRET_KEY_VARIABLE} or ${SECRET_KEY_FILE_VARIABLE} (${keyForm})`);
    return undefined;
  }
  let text: string;
  let name: string;
  if (file !== undefined) {
    name = `${SECRET_KEY_FILE_VARIABLE}'s file ${file}`;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
      r.problems.push(`${SECRET_KEY_FILE_VARIABLE}: the file ${file} cannot be read (${code})`);
      return undefined;
    }
  } else {
    name = SECRET_KEY_VARIABLE;
    text = inline ?? '';
  }
  const decoded = decodeSecretKey(text);
  if ('problem' in decoded) {
    r.problems.push(`${name} ${decoded.problem}`);
    return undefined;
  }
  return decoded.key;
}
