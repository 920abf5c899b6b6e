import { parseArgs } from 'node:util';
import { readStoreConfig } from '../../plumbing/config/config.js';
import { CredentialStore, credentialsCollection, scopes as knownScopes, UnknownCredentialError } from '../../domain/credentials/credential-store.js';
import { generatePassword, hashPassword } from '../../domain/credentials/password-hash.js';
import { passwordProblem } from '../../domain/credentials/password-rule.js';
import type { Scope } from '../../domain/credentials/credential.js';
import { connectMongo } from '../../adapters/mongodb/connect.js';
import { UsageError } from '../usage.js';

const usage = `ossn credentials add <id> --scopes order_status,osn --clients C1,C2 [--generate]
ossn credentials list
ossn credentials disable <id>
ossn credentials enable <id>
ossn credentials link <id> --clients C3,C4
ossn credentials unlink <id> --clients C1,C2
ossn credentials set-scopes <id> --scopes osn
ossn credentials reset-password <id> [--generate]
    a password (add, reset-password) is read from stdin (one line), or generated and shown once with --generate
    list shows ids, state, scopes and clients: never a password or its hash
    running query services see a change within 30 s (their authenticators' cache)`;

/** The options each action takes: one given to another action is refused, not silently ignored. */
const actionOptions: Record<string, readonly string[]> = {
  add: ['scopes', 'clients', 'generate'],
  list: [],
  disable: [],
  enable: [],
  link: ['clients'],
  unlink: ['clients'],
  'set-scopes': ['scopes'],
  'reset-password': ['generate'],
};

function listOption(value: string | undefined, name: string): string[] {
  const items = (value ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  if (items.length === 0) throw new UsageError(`--${name} needs a comma-separated list\n${usage}`);
  return [...new Set(items)];
}

function parseScopes(value: string | undefined): Scope[] {
  const scopes = listOption(value, 'scopes');
  const unknown = scopes.filter((s) => !(knownScopes as readonly string[]).includes(s));
  if (unknown.length > 0) throw new UsageError(`unknown scope ${unknown.join(', ')}; known: ${knownScopes.join(', ')}`);
  return scopes as Scope[];
}

/** A password never comes from argv (it would show in `ps` and shell history): stdin or generated. */
async function readPasswordFromStdin(): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write('password (input is echoed; prefer piping it): ');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) {
    chunks.push(chunk as Buffer);
    if (process.stdin.isTTY && chunk.includes(10)) break;
  }
  const password = Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '';
  const problem = passwordProblem(password);
  if (problem !== undefined) throw new UsageError(problem);
  return password;
}

export async function credentialsCommand(argv: string[]): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { scopes: { type: 'string' }, clients: { type: 'string' }, generate: { type: 'boolean' } },
  });
  const [action, id, ...extra] = positionals;
  const allowed = action === undefined ? undefined : actionOptions[action];
  if (!allowed || (action === 'list' ? id !== undefined : id === undefined) || extra.length > 0) throw new UsageError(usage);
  if (id !== undefined && (id.length > 64 || id.length === 0)) throw new UsageError('a credential id is 1 to 64 characters');
  const misplaced = Object.keys(values).filter((name) => !allowed.includes(name));
  if (misplaced.length > 0) throw new UsageError(`credentials ${action} takes no ${misplaced.map((name) => `--${name}`).join(', ')}\n${usage}`);

  const config = readStoreConfig();
  const client = await connectMongo(config.mongodbUri, 'ossn-credentials');
  try {
    const store = new CredentialStore(credentialsCollection(client.db(config.database)));
    switch (action) {
      case 'add': {
        const scopes = parseScopes(values.scopes);
        const clientIds = listOption(values.clients, 'clients');
        const password = values.generate ? generatePassword() : await readPasswordFromStdin();
        await store.add({ id: id!, passwordHash: await hashPassword(password), scopes, clientIds });
        process.stdout.write(`added credential ${id} (scopes ${scopes.join(',')}; clients ${clientIds.join(',')})\n`);
        if (values.generate) process.stdout.write(`password (shown once): ${password}\n`);
        return;
      }
      case 'list':
        for (const c of await store.list()) {
          process.stdout.write(`${c.id}\t${c.active ? 'active' : 'disabled'}\tscopes=${c.scopes.join(',')}\tclients=${c.clientIds.join(',')}\n`);
        }
        return;
      case 'disable':
      case 'enable':
        await store.setActive(id!, action === 'enable');
        process.stdout.write(`credential ${id} ${action}d\n`);
        return;
      case 'link': {
        const clientIds = listOption(values.clients, 'clients');
        await store.link(id!, clientIds);
        process.stdout.write(`credential ${id} linked to ${clientIds.join(',')}\n`);
        return;
      }
      case 'unlink': {
        const clientIds = listOption(values.clients, 'clients');
        await store.unlink(id!, clientIds);
        process.stdout.write(`credential ${id} unlinked from ${clientIds.join(',')}\n`);
        return;
      }
      case 'set-scopes': {
        const scopes = parseScopes(values.scopes);
        await store.setScopes(id!, scopes);
        process.stdout.write(`credential ${id} scopes set to ${scopes.join(',')}\n`);
        return;
      }
      case 'reset-password': {
        // Asked before the password is: a mistyped id should not cost the operator a typed or shown password.
        if (!(await store.find(id!))) throw new UnknownCredentialError(id!);
        const password = values.generate ? generatePassword() : await readPasswordFromStdin();
        await store.setPasswordHash(id!, await hashPassword(password));
        process.stdout.write(`credential ${id} has a new password\n`);
        if (values.generate) process.stdout.write(`password (shown once): ${password}\n`);
        return;
      }
      default:
        throw new UsageError(usage);
    }
  } finally {
    await client.close();
  }
}
