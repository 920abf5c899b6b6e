import type { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOssn } from '../../test/support/ossn-cli.js';
import { testEnvironment, uniqueNames } from '../../test/support/servers.js';
import { CachingAuthenticator } from '../domain/credentials/authenticator.js';
import { CredentialStore, credentialsCollection } from '../domain/credentials/credential-store.js';
import { connectMongo } from '../adapters/mongodb/connect.js';

// The real command line (`node bin/ossn.mjs credentials ...`) as an operator runs it, against a
// database of this file's own; verification goes through the query service's authenticator.

const env = testEnvironment();
const database = uniqueNames('credentials-cli').database;
let mongo: MongoClient;
let store: CredentialStore;

beforeAll(async () => {
  mongo = await connectMongo(env.mongodbUri, 'credentials-cli-test');
  store = new CredentialStore(credentialsCollection(mongo.db(database)));
});
afterAll(async () => {
  await mongo?.close();
});

/** Runs `ossn <args>` with `input` on stdin. */
const ossn = (args: string[], input = '') =>
  runOssn(args, { MONGODB_URI: env.mongodbUri, MONGODB_DATABASE: database, READ_MODEL_VERSION: '1', LOG_LEVEL: 'silent' }, { input });

/** A fresh authenticator each time, so nothing is answered from a cache. */
const verify = (id: string, password: string) => new CachingAuthenticator(store).verify(id, password);

describe('ossn credentials', () => {
  it('add reads the password from stdin, never prints it, and the credential authenticates', async () => {
    const password = 'stdin-password-Ü 1';
    const run = await ossn(['credentials', 'add', 'acme', '--scopes', 'order_status,osn', '--clients', 'C1,C2'], `${password}\n`);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toBe('added credential acme (scopes order_status,osn; clients C1,C2)\n');
    expect(run.stdout).not.toContain(password);
    expect(await verify('acme', password)).toEqual({ id: 'acme', scopes: ['order_status', 'osn'], clientIds: ['C1', 'C2'] });
    expect(await verify('acme', 'stdin-password-Ü')).toBeUndefined();
    // The stored value is a hash, not the password.
    expect((await store.find('acme'))?.passwordHash).toMatch(/^scrypt\$/);
    expect(JSON.stringify(await store.find('acme'))).not.toContain(password);
  });

  it('add --generate shows the generated password exactly once, and it authenticates', async () => {
    const run = await ossn(['credentials', 'add', 'globex', '--scopes', 'osn', '--clients', 'C3', '--generate']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const match = /^password \(shown once\): (\S+)$/m.exec(run.stdout);
    expect(match).not.toBeNull();
    const password = match![1]!;
    expect(password.length).toBeGreaterThanOrEqual(24);
    expect(run.stdout.split(password)).toHaveLength(2);
    expect(await verify('globex', password)).toEqual({ id: 'globex', scopes: ['osn'], clientIds: ['C3'] });
    // Never again: list does not show it.
    const list = await ossn(['credentials', 'list']);
    expect(list.stdout).not.toContain(password);
  });

  it('refuses a duplicate id clearly, keeping the first credential', async () => {
    const run = await ossn(['credentials', 'add', 'acme', '--scopes', 'osn', '--clients', 'C9', '--generate']);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('credential acme already exists');
    expect(run.stdout).not.toContain('password');
    expect(await store.find('acme')).toMatchObject({ scopes: ['order_status', 'osn'], clientIds: ['C1', 'C2'] });
  });

  it('list shows each credential with state, scopes and clients, and no hash', async () => {
    const run = await ossn(['credentials', 'list']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toBe('acme\tactive\tscopes=order_status,osn\tclients=C1,C2\nglobex\tactive\tscopes=osn\tclients=C3\n');
    expect(run.stdout).not.toContain('scrypt');
  });

  it('disable makes verification fail at once; enable restores it', async () => {
    const password = 'stdin-password-Ü 1';
    const disabled = await ossn(['credentials', 'disable', 'acme']);
    expect(disabled).toMatchObject({ code: 0, stdout: 'credential acme disabled\n' });
    expect(await verify('acme', password)).toBeUndefined();
    expect((await ossn(['credentials', 'list'])).stdout).toContain('acme\tdisabled\t');

    expect(await ossn(['credentials', 'enable', 'acme'])).toMatchObject({ code: 0, stdout: 'credential acme enabled\n' });
    expect(await verify('acme', password)).toMatchObject({ id: 'acme' });
  });

  it('link adds clients to a credential', async () => {
    const run = await ossn(['credentials', 'link', 'globex', '--clients', 'C4,C3']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('credential globex linked to C4,C3');
    expect((await store.find('globex'))?.clientIds).toEqual(['C3', 'C4']);
  });

  it('refuses unknown ids, scopes and missing lists with a message and no change', async () => {
    const unknown = await ossn(['credentials', 'disable', 'ghost']);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('no credential with id ghost');
    const badScope = await ossn(['credentials', 'add', 'initech', '--scopes', 'admin', '--clients', 'C1', '--generate']);
    expect(badScope.code).toBe(2);
    expect(badScope.stderr).toContain('unknown scope admin');
    const noClients = await ossn(['credentials', 'add', 'initech', '--scopes', 'osn', '--generate']);
    expect(noClients.code).toBe(2);
    expect(noClients.stderr).toContain('--clients');
    expect(await store.find('initech')).toBeNull();
    expect(await store.find('ghost')).toBeNull();
  });

  it('never takes a password from argv: the usage offers none, and --password is refused without echoing it', async () => {
    const usage = await ossn(['credentials']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('ossn credentials add <id>');
    expect(usage.stderr).toContain('stdin');
    expect(usage.stderr).not.toMatch(/--password|-p\b/);

    const secret = 'argv-secret-42';
    for (const args of [
      ['--password', secret],
      [`--password=${secret}`],
      ['-p', secret],
    ]) {
      const run = await ossn(['credentials', 'add', 'hooli', '--scopes', 'osn', '--clients', 'C1', ...args], `${secret}\n`);
      expect(run.code).not.toBe(0);
      expect(run.stderr).toMatch(/Unknown option '(--password|-p)'/);
      expect(run.stdout + run.stderr).not.toContain(secret);
    }
    expect(await store.find('hooli')).toBeNull();
  });

  it('refuses a password on stdin shorter than 16 characters, over-long, or with surrounding whitespace', async () => {
    for (const input of ['', 'x\n', `${'x'.repeat(15)}\n`, `${'x'.repeat(65)}\n`]) {
      const run = await ossn(['credentials', 'add', 'umbrella', '--scopes', 'osn', '--clients', 'C1'], input);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('the password must be 16 to 64 characters (--generate makes one)');
    }
    const spaced = await ossn(['credentials', 'add', 'umbrella', '--scopes', 'osn', '--clients', 'C1'], ` ${'x'.repeat(20)}\n`);
    expect(spaced.code).toBe(2);
    expect(spaced.stderr).toContain('must not begin or end with whitespace');
    expect(await store.find('umbrella')).toBeNull();
    const sixteen = await ossn(['credentials', 'add', 'umbrella', '--scopes', 'osn', '--clients', 'C1'], `${'é'.repeat(16)}\n`);
    expect(sixteen.code).toBe(0);
  });
});

describe('ossn credentials: changes an operator makes', () => {
  /** The salt and key of a credential's stored hash: none may ever be printed. */
  const hashParts = async (id: string) => (await store.find(id))!.passwordHash.split('$').slice(-2);

  it('unlink removes only the clients named, and list shows the rest', async () => {
    expect((await ossn(['credentials', 'add', 'wayne', '--scopes', 'order_status', '--clients', 'C1,C2,C3', '--generate'])).code).toBe(0);
    const run = await ossn(['credentials', 'unlink', 'wayne', '--clients', 'C3, C1']);
    expect(run).toMatchObject({ code: 0, stdout: 'credential wayne unlinked from C3,C1\n', stderr: '' });
    expect((await store.find('wayne'))?.clientIds).toEqual(['C2']);
    expect((await ossn(['credentials', 'list'])).stdout).toContain('wayne\tactive\tscopes=order_status\tclients=C2\n');
  });

  it('unlink refuses a client not linked or an unknown id by name, changing nothing', async () => {
    const typo = await ossn(['credentials', 'unlink', 'wayne', '--clients', 'C2,C7']);
    expect(typo).toMatchObject({ code: 1, stdout: '', stderr: 'ossn: credential wayne is not linked to C7\n' });
    expect((await store.find('wayne'))?.clientIds).toEqual(['C2']);

    const ghost = await ossn(['credentials', 'unlink', 'ghost', '--clients', 'C1']);
    expect(ghost).toMatchObject({ code: 1, stderr: 'ossn: no credential with id ghost\n' });
    const noClients = await ossn(['credentials', 'unlink', 'wayne']);
    expect(noClients.code).toBe(2);
    expect(noClients.stderr).toContain('--clients needs a comma-separated list');
    expect(await store.find('ghost')).toBeNull();
  });

  it('set-scopes replaces the scopes; an unknown scope or id is refused, changing nothing', async () => {
    const run = await ossn(['credentials', 'set-scopes', 'wayne', '--scopes', 'osn']);
    expect(run).toMatchObject({ code: 0, stdout: 'credential wayne scopes set to osn\n', stderr: '' });
    expect((await store.find('wayne'))?.scopes).toEqual(['osn']);

    const badScope = await ossn(['credentials', 'set-scopes', 'wayne', '--scopes', 'osn,admin']);
    expect(badScope.code).toBe(2);
    expect(badScope.stderr).toContain('unknown scope admin; known: order_status, osn');
    const ghost = await ossn(['credentials', 'set-scopes', 'ghost', '--scopes', 'osn']);
    expect(ghost).toMatchObject({ code: 1, stderr: 'ossn: no credential with id ghost\n' });
    expect((await store.find('wayne'))?.scopes).toEqual(['osn']);
    expect(await store.find('ghost')).toBeNull();
  });

  it('reset-password reads the new password from stdin: the old one fails, the new one works, neither is printed', async () => {
    const old = 'kent-old-password';
    expect((await ossn(['credentials', 'add', 'kent', '--scopes', 'osn', '--clients', 'C5'], `${old}\n`)).code).toBe(0);
    const fresh = 'kent-new-password Ä';
    const run = await ossn(['credentials', 'reset-password', 'kent'], `${fresh}\n`);
    expect(run).toMatchObject({ code: 0, stdout: 'credential kent has a new password\n', stderr: '' });
    expect(await verify('kent', old)).toBeUndefined();
    expect(await verify('kent', fresh)).toEqual({ id: 'kent', scopes: ['osn'], clientIds: ['C5'] });

    const short = await ossn(['credentials', 'reset-password', 'kent'], 'kent-short\n');
    expect(short).toMatchObject({ code: 2, stderr: 'the password must be 16 to 64 characters (--generate makes one)\n' });
    expect(await verify('kent', fresh)).toBeDefined();
  });

  it('reset-password --generate shows the new password exactly once, and only it works', async () => {
    const before = await hashParts('kent');
    const run = await ossn(['credentials', 'reset-password', 'kent', '--generate']);
    expect(run.code).toBe(0);
    const password = /^password \(shown once\): (\S+)$/m.exec(run.stdout)?.[1];
    expect(password).toBeDefined();
    expect(run.stdout).toBe(`credential kent has a new password\npassword (shown once): ${password}\n`);
    expect(await verify('kent', password!)).toMatchObject({ id: 'kent' });
    expect(await verify('kent', 'kent-new-password Ä')).toBeUndefined();
    expect(await hashParts('kent')).not.toEqual(before);
  });

  it('reset-password of an unknown id is refused, and no password is made or shown', async () => {
    const generated = await ossn(['credentials', 'reset-password', 'ghost', '--generate']);
    expect(generated).toMatchObject({ code: 1, stdout: '', stderr: 'ossn: no credential with id ghost\n' });
    const typed = await ossn(['credentials', 'reset-password', 'ghost'], 'typed-pw\n');
    expect(typed).toMatchObject({ code: 1, stdout: '', stderr: 'ossn: no credential with id ghost\n' });
    expect(await store.find('ghost')).toBeNull();
  });

  it('list shows every change and no password, hash, salt or key', async () => {
    const run = await ossn(['credentials', 'list']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toContain('wayne\tactive\tscopes=osn\tclients=C2\n');
    expect(run.stdout).toContain('kent\tactive\tscopes=osn\tclients=C5\n');
    expect(run.stdout).not.toContain('scrypt');
    for (const credential of await store.list()) {
      for (const part of await hashParts(credential.id)) expect(run.stdout).not.toContain(part);
    }
  });

  it('refuses an option of another action instead of ignoring it, changing nothing', async () => {
    const run = await ossn(['credentials', 'reset-password', 'kent', '--clients', 'C1'], 'not-taken\n');
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('credentials reset-password takes no --clients');
    expect(await verify('kent', 'not-taken')).toBeUndefined();
    const disable = await ossn(['credentials', 'disable', 'kent', '--scopes', 'osn']);
    expect(disable.code).toBe(2);
    expect(disable.stderr).toContain('credentials disable takes no --scopes');
    expect((await store.find('kent'))?.active).toBe(true);
  });

  it('a running query service sees each change once its authenticator\'s 30 s have passed', async () => {
    const first = 'stark-first-password';
    expect((await ossn(['credentials', 'add', 'stark', '--scopes', 'order_status,osn', '--clients', 'C1,C2'], `${first}\n`)).code).toBe(0);
    // One authenticator throughout, as a query service keeps it, with its default TTL and a clock of ours.
    let now = 1_000_000;
    const service = new CachingAuthenticator(store, { now: () => now });
    expect(await service.verify('stark', first)).toEqual({ id: 'stark', scopes: ['order_status', 'osn'], clientIds: ['C1', 'C2'] });

    expect((await ossn(['credentials', 'unlink', 'stark', '--clients', 'C1'])).code).toBe(0);
    expect((await ossn(['credentials', 'set-scopes', 'stark', '--scopes', 'osn'])).code).toBe(0);
    now += 30_001;
    expect(await service.verify('stark', first)).toEqual({ id: 'stark', scopes: ['osn'], clientIds: ['C2'] });

    expect((await ossn(['credentials', 'reset-password', 'stark'], 'stark-second-password\n')).code).toBe(0);
    now += 30_001;
    expect(await service.verify('stark', first)).toBeUndefined();
    expect(await service.verify('stark', 'stark-second-password')).toEqual({ id: 'stark', scopes: ['osn'], clientIds: ['C2'] });

    expect((await ossn(['credentials', 'disable', 'stark'])).code).toBe(0);
    now += 30_001;
    expect(await service.verify('stark', 'stark-second-password')).toBeUndefined();
  });
});
