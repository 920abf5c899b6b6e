// The real scrypt verification, counted and, when a test asks, held: given to CachingAuthenticator
// as its verifyPassword, it tells a test how many passwords were really hashed, and lets it decide
// when the checks in flight end instead of waiting on the clock.
import { verifyPassword } from '../../services/domain/credentials/password-hash.js';

export interface ScryptRuns {
  /** Verifications started. */
  runs: number;
  verifyPassword(password: string, hash: string): Promise<boolean>;
  /** From now on, verifications wait (their slot held) until release(). */
  hold(): void;
  /** Lets every held verification, and those to come, run. */
  release(): void;
}

export function scryptRuns(): ScryptRuns {
  let gate: Promise<void> | undefined;
  let open = () => {};
  const counted: ScryptRuns = {
    runs: 0,
    async verifyPassword(password, hash) {
      counted.runs++;
      await gate;
      return verifyPassword(password, hash);
    },
    hold() {
      gate = new Promise((resolve) => (open = resolve));
    },
    release() {
      gate = undefined;
      open();
    },
  };
  return counted;
}
