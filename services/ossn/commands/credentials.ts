import type { StoreDatabase } from '../../adapters/mongodb/connect.js';
import { readStoreConfig, type StoreConfig } from '../../config/config.js';
import { CredentialStore, credentialsCollection, scopes as knownScopes, UnknownCredentialError, type CredentialSummary } from '../../adapters/mongodb/credential-store.js';
import { generatePassword, hashPassword } from '../../domain/credentials/password-hash.js';
import { passwordProblem } from '../../domain/credentials/password-rule.js';
import type { Scope } from '../../domain/credentials/credential.js';
import { readActiveVersion } from '../../adapters/mongodb/active-version.js';
import { readModelCollections } from '../../adapters/mongodb/documents.js';
import { UsageError } from '../usage.js';
import type { Command } from '../command.js';
import { parseCommandLine, takeAction } from '../command-line.js';
import { ExitCode } from '../exit-codes.js';
import { connectMongoFor } from '../server-waits.js';
import { parseDuration } from '../durations.js';
import { readPassword } from '../read-password.js';

const usage = `usage: ossn credentials <action> ...

ossn credentials add <id> --scopes order_status,osn --clients C1,C2 [--generate] [--force]
ossn credentials list [--json]
ossn credentials remove <id>
ossn credentials disable <id>
ossn credentials enable <id>
ossn credentials link <id> --clients C3,C4 [--force]
ossn credentials unlink <id> --clients C1,C2
ossn credentials set-scopes <id> --scopes osn
ossn credentials reset-password <id> [--generate] [--keep-old-for DURATION]
    a password (add, reset-password) is read from stdin: typed at a terminal it is not shown (and asked
    twice), piped it is the first line; or generated and shown once with --generate
    --clients are checked against the read models (the active version in MONGODB_DATABASE): a client
    with no order there is refused, unless --force (a client whose orders have not come yet)
    --keep-old-for DURATION (30m, 12h, 7d; at most 90d): the old password keeps working that long
    beside the new one, so the partner can switch over; without it, it ends at once
    list shows ids, state, scopes, clients, when each was created and last used (a query service
    records a use at most once a minute), never a password or its hash
    running query services see a change within 30 s (their authenticators' cache)`;

const options = {
  scopes: { type: 'string' },
  clients: { type: 'string' },
  generate: { type: 'boolean' },
  force: { type: 'boolean' },
  json: { type: 'boolean' },
  'keep-old-for': { type: 'string' },
} as const;

/** The options each action takes: one given to another action is refused, not silently ignored. */
const actionOptions = {
  add: ['scopes', 'clients', 'generate', 'force'],
  list: ['json'],
  remove: [],
  disable: [],
  enable: [],
  link: ['clients', 'force'],
  unlink: ['clients'],
  'set-scopes': ['scopes'],
  'reset-password': ['generate', 'keep-old-for'],
} as const satisfies Record<string, readonly (keyof typeof options)[]>;

const actions = Object.keys(actionOptions) as (keyof typeof actionOptions)[];

/** The longest overlap of an old password with its successor. */
const maxKeepOldMs = 90 * 86_400_000;

function listOption(action: string, value: string | undefined, name: string): string[] {
  const items = (value ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  if (items.length === 0) throw new UsageError(`ossn credentials ${action}: --${name} needs a comma-separated list (see ossn credentials --help)`);
  return [...new Set(items)];
}

function parseScopes(action: string, value: string | undefined): Scope[] {
  const scopes = listOption(action, value, 'scopes');
  const unknown = scopes.filter((s) => !(knownScopes as readonly string[]).includes(s));
  if (unknown.length > 0) throw new UsageError(`unknown scope ${unknown.join(', ')}; known: ${knownScopes.join(', ')}`);
  return scopes as Scope[];
}

/** A password never comes from argv (it would show in `ps` and shell history): stdin or generated. */
async function newPassword(generate: boolean | undefined): Promise<string> {
  const password = generate ? generatePassword() : await readPassword();
  const problem = passwordProblem(password);
  if (problem !== undefined) throw new UsageError(problem);
  return password;
}

/**
 * Client ids of `clientIds` with no order in the active read-model version: most likely a typo,
 * which would link the partner to nothing (or, worse, to another client's orders one day).
 */
async function unknownClients(db: StoreDatabase, store: StoreConfig, clientIds: string[]): Promise<string[]> {
  const { version } = await readActiveVersion(db, store.readModelVersion);
  const { orderStatus, shipments } = readModelCollections(db, version);
  const unknown: string[] = [];
  for (const clientId of clientIds) {
    // The indexes lead with clientId: one index probe each.
    const seen =
      (await orderStatus.findOne({ clientId }, { projection: { _id: 1 } })) ?? (await shipments.findOne({ clientId }, { projection: { _id: 1 } }));
    if (!seen) unknown.push(clientId);
  }
  return unknown;
}

async function checkClients(db: StoreDatabase, store: StoreConfig, action: string, clientIds: string[], force: boolean | undefined): Promise<void> {
  if (force) return;
  const unknown = await unknownClients(db, store, clientIds);
  if (unknown.length === 0) return;
  throw new Error(
    `no order of client ${unknown.join(', ')} in the read models (database ${store.database}): check the id, or give --force to ${action} a client whose orders have not come yet`,
  );
}

const time = (date: Date | undefined) => (date ? date.toISOString() : 'never');

function listLine(c: CredentialSummary): string {
  return [
    c.id,
    c.active ? 'active' : 'disabled',
    `scopes=${c.scopes.join(',')}`,
    `clients=${c.clientIds.join(',')}`,
    `created=${time(c.createdAt)}`,
    `last-used=${time(c.lastUsedAt)}`,
    ...(c.previousPasswordUntil ? [`old-password-until=${c.previousPasswordUntil.toISOString()}`] : []),
  ].join('\t');
}

export const credentialsCommand: Command = { help: usage, run: credentials };

async function credentials(argv: string[]): Promise<ExitCode> {
  const { action, rest } = takeAction('credentials', actions, argv);
  const { values, positionals } = parseCommandLine(
    {
      name: `credentials ${action}`,
      options,
      accepts: actionOptions[action],
      positionals: action === 'list' ? { names: '', min: 0, max: 0 } : { names: '<id>', min: 1, max: 1 },
    },
    rest,
  );
  const id = positionals[0] ?? '';
  if (action !== 'list' && id.length > 64) throw new UsageError('a credential id is 1 to 64 characters');
  const keepOldFor = values['keep-old-for'] === undefined ? undefined : parseDuration(values['keep-old-for'], '--keep-old-for', maxKeepOldMs);
  // Every mistake in the command line is said before a server is asked: exit 2, nothing done.
  const scopes = action === 'add' || action === 'set-scopes' ? parseScopes(action, values.scopes) : [];
  const clientIds = action === 'add' || action === 'link' || action === 'unlink' ? listOption(action, values.clients, 'clients') : [];

  const config = readStoreConfig();
  const client = await connectMongoFor('credentials', config.mongodbUri);
  try {
    const db = client.db(config.database);
    const store = new CredentialStore(credentialsCollection(db));
    switch (action) {
      case 'add': {
        // Asked before the password is: a refusal should not cost the operator a typed or shown password.
        await checkClients(db, config, action, clientIds, values.force);
        const password = await newPassword(values.generate);
        await store.add({ id, passwordHash: await hashPassword(password), scopes, clientIds });
        process.stdout.write(`added credential ${id} (scopes ${scopes.join(',')}; clients ${clientIds.join(',')})\n`);
        if (values.generate) process.stdout.write(`password (shown once): ${password}\n`);
        return ExitCode.ok;
      }
      case 'list': {
        const all = await store.list();
        if (values.json) {
          const shown = all.map((c) => ({ ...c, lastUsedAt: c.lastUsedAt ?? null, previousPasswordUntil: c.previousPasswordUntil ?? null }));
          process.stdout.write(`${JSON.stringify(shown, null, 2)}\n`);
        } else {
          for (const c of all) process.stdout.write(`${listLine(c)}\n`);
        }
        return ExitCode.ok;
      }
      case 'remove':
        await store.remove(id);
        process.stdout.write(`credential ${id} removed\n`);
        return ExitCode.ok;
      case 'disable':
      case 'enable':
        await store.setActive(id, action === 'enable');
        process.stdout.write(`credential ${id} ${action}d\n`);
        return ExitCode.ok;
      case 'link': {
        if (!(await store.find(id))) throw new UnknownCredentialError(id);
        await checkClients(db, config, action, clientIds, values.force);
        await store.link(id, clientIds);
        process.stdout.write(`credential ${id} linked to ${clientIds.join(',')}\n`);
        return ExitCode.ok;
      }
      case 'unlink': {
        await store.unlink(id, clientIds);
        process.stdout.write(`credential ${id} unlinked from ${clientIds.join(',')}\n`);
        return ExitCode.ok;
      }
      case 'set-scopes': {
        await store.setScopes(id, scopes);
        process.stdout.write(`credential ${id} scopes set to ${scopes.join(',')}\n`);
        return ExitCode.ok;
      }
      case 'reset-password': {
        // Asked before the password is: a mistyped id should not cost the operator a typed or shown password.
        if (!(await store.find(id))) throw new UnknownCredentialError(id);
        const password = await newPassword(values.generate);
        const keepOldUntil = keepOldFor ? new Date(Date.now() + keepOldFor) : undefined;
        await store.setPasswordHash(id, await hashPassword(password), keepOldUntil);
        process.stdout.write(
          `credential ${id} has a new password${keepOldUntil ? `; the old one works too until ${keepOldUntil.toISOString()}` : ''}\n`,
        );
        if (values.generate) process.stdout.write(`password (shown once): ${password}\n`);
        return ExitCode.ok;
      }
    }
  } finally {
    await client.close();
  }
}
