import type { CredentialStore } from '../../adapters/mongodb/credential-store.js';
import { hashPassword } from './password-hash.js';

export const demoCredentialId = 'demo';
export const demoClientIds = ['CLIENT-001', 'CLIENT-002'];

/**
 * Makes the demo credential (both scopes, the first two demo clients) answer to `password`:
 * created when missing, its password reset otherwise, so a local run can always print a working one.
 */
export async function ensureDemoCredential(store: CredentialStore, password: string): Promise<void> {
  await store.upsert({ id: demoCredentialId, passwordHash: await hashPassword(password), scopes: ['order_status', 'osn'], clientIds: demoClientIds });
}
