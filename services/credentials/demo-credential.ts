import { CredentialExistsError, type CredentialStore } from './credential-store.js';
import { generatePassword, hashPassword } from './password-hash.js';

export const demoCredentialId = 'demo';
export const demoClientIds = ['CLIENT-001', 'CLIENT-002'];

/**
 * Creates the demo credential (both scopes, the first two demo clients) unless it exists.
 * Returns the password only when it was created now: it is shown once and never stored in clear.
 */
export async function ensureDemoCredential(store: CredentialStore, password = generatePassword()): Promise<{ id: string; password?: string }> {
  try {
    await store.add({ id: demoCredentialId, passwordHash: await hashPassword(password), scopes: ['order_status', 'osn'], clientIds: demoClientIds });
    return { id: demoCredentialId, password };
  } catch (error) {
    if (error instanceof CredentialExistsError) return { id: demoCredentialId };
    throw error;
  }
}
