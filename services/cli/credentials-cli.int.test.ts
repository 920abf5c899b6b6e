import type { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOssn } from '../../test/support/ossn-command.js';
import { testEnvironment, uniqueNames } from '../../test/support/servers.js';
import { CachingAuthenticator } from '../credentials/authenticator.js';
import { CredentialStore, credentialsCollection } from '../credentials/credential-store.js';
import { connectMongo } from '../read-model-store/connect.js';

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
  runOssn(args, { MONGODB_URI: env.mongodbUri, MONGODB_DATABASE: database, READ_MODEL_VERSION: '1', LOG_LEVEL: 'silent' }, input);

/** A fresh authenticator each time, so nothing is answered from a cache. */
const verify = (id: string, password: string) => new CachingAuthenticator(store).verify(id, password);

describe('ossn credentials', () => {
  it('add reads the password from stdin, never prints it, and the credential authenticates', async () => {
    const password = 'stdin-pw-Ü 1';
    const run = await ossn(['credentials', 'add', 'acme', '--scopes', 'order_status,osn', '--clients', 'C1,C2'], `${password}\n`);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toBe('added credential acme (scopes order_status,osn; clients C1,C2)\n');
    expect(run.stdout).not.toContain(password);
    expect(await verify('acme', password)).toEqual({ id: 'acme', scopes: ['order_status', 'osn'], clientIds: ['C1', 'C2'] });
    expect(await verify('acme', 'stdin-pw-Ü')).toBeUndefined();
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
    const password = 'stdin-pw-Ü 1';
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

  it('refuses an empty or over-long password on stdin', async () => {
    const empty = await ossn(['credentials', 'add', 'umbrella', '--scopes', 'osn', '--clients', 'C1'], '');
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('the password must be 1 to 64 characters');
    const long = await ossn(['credentials', 'add', 'umbrella', '--scopes', 'osn', '--clients', 'C1'], `${'x'.repeat(65)}\n`);
    expect(long.code).toBe(2);
    expect(await store.find('umbrella')).toBeNull();
  });
});
