// For tests: the password-hash module with its real scrypt verifications counted, so that a test
// can tell how many passwords were really hashed. In a test file:
//   vi.mock('./password-hash.js', async (original) => (await import('./scrypt-runs.js')).countingScrypt(await original()));
//   const { scrypt } = await import('./scrypt-runs.js');
import type * as PasswordHash from './password-hash.js';

export const scrypt = { runs: 0 };

export function countingScrypt(real: typeof PasswordHash): typeof PasswordHash {
  return {
    ...real,
    verifyPassword: async (password: string, hash: string) => {
      scrypt.runs++;
      return real.verifyPassword(password, hash);
    },
  };
}
