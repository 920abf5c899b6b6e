import type { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOssn } from '../../test/support/ossn-cli.js';
import { testEnvironment, uniqueNames } from '../../test/support/servers.js';
import { decodeSecretKey, type SecretKey } from '../config/secret-key.js';
import { CredentialStore, credentialsCollection } from '../adapters/mongodb/credential-store.js';
import { connectMongo } from '../adapters/mongodb/connect.js';
import { MongoPushSubscriptions, pushSubscriptionsCollection } from '../adapters/mongodb/push-subscriptions.js';
import { openReceiverPassword } from '../domain/push/receiver-password.js';

// The real command line (`node bin/ossn.mjs push ...`) as an operator runs it, against a database
// of this file's own; what it stored is read back through the store and opened with the key.

const env = testEnvironment();
const database = uniqueNames('push-cli').database;
const secretKey = Buffer.from(Array.from({ length: 32 }, (_, i) => 255 - i * 3)).toString('base64');
const key = (decodeSecretKey(secretKey) as { key: SecretKey }).key;
let mongo: MongoClient;
let store: MongoPushSubscriptions;

beforeAll(async () => {
  mongo = await connectMongo(env.mongodbUri, 'push-cli-test');
  store = new MongoPushSubscriptions(pushSubscriptionsCollection(mongo.db(database)));
  const credentials = new CredentialStore(credentialsCollection(mongo.db(database)));
  // The hashes do not matter here: push never verifies a partner's password.
  await credentials.add({ id: 'acme', passwordHash: 'scrypt$x', scopes: ['order_status', 'osn'], clientIds: ['C1', 'C2'] });
  await credentials.add({ id: 'globex', passwordHash: 'scrypt$x', scopes: ['order_status'], clientIds: ['C3'] });
});
afterAll(async () => {
  await mongo?.close();
});

const baseEnv = { MONGODB_URI: env.mongodbUri, MONGODB_DATABASE: database, LOG_LEVEL: 'trace' };

/** Runs `ossn push <args>` with the key set and `input` on stdin. */
const push = (args: string[], input = '', extraEnv: Record<string, string> = {}) =>
  runOssn(['push', ...args], { ...baseEnv, OSSN_SECRET_KEY: secretKey, ...extraEnv }, { input });

const addedId = (stdout: string) => /^added push subscription (ps-[0-9a-z]{10}):/.exec(stdout)?.[1];

const receiverPassword = 'receiver-Pässword 7';
const time = '\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z';

describe('ossn push add and list', () => {
  let first: string;

  it('add reads the receiver password from stdin, stores it sealed, prints the new id and never the password', async () => {
    const run = await push(['add', 'acme', '--url', 'https://osn.acme.example/receiver', '--id', 'ossn-at-acme'], `${receiverPassword}\n`);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    first = addedId(run.stdout)!;
    expect(first).toBeDefined();
    expect(run.stdout).toMatch(
      new RegExp(`^added push subscription ${first}: credential acme, every client, to https://osn.acme.example/receiver, receiver id ossn-at-acme, password set, from ${time}\\n$`),
    );
    expect(run.stdout).not.toContain(receiverPassword);
    const stored = await store.find(first);
    expect(stored).toMatchObject({ credentialId: 'acme', url: 'https://osn.acme.example/receiver', receiverId: 'ossn-at-acme', enabled: true });
    expect(stored).not.toHaveProperty('clientId');
    expect(stored?.cursorStart).toEqual(stored?.createdAt);
    expect(JSON.stringify(await pushSubscriptionsCollection(mongo.db(database)).find({}).toArray())).not.toContain(receiverPassword);
    expect(openReceiverPassword(stored!, key)?.reveal()).toBe(receiverPassword);
  });

  it('add takes an empty line as no password, and one client, a customer identifier and --from', async () => {
    const run = await push(
      ['add', 'acme', '--url', 'https://osn.acme.example/other', '--id', 'ossn', '--client', 'C2', '--customer-identifier', 'ACME Corp', '--from', '2026-01-02T03:04:05+01:00'],
      '\n',
    );
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const id = addedId(run.stdout)!;
    expect(run.stdout).toContain(`credential acme, client C2, to https://osn.acme.example/other, receiver id ossn, password none, from 2026-01-02T02:04:05.000Z\n`);
    const stored = await store.find(id);
    expect(stored).toMatchObject({ clientId: 'C2', customerIdentifier: 'ACME Corp', cursorStart: new Date('2026-01-02T02:04:05Z') });
    expect(stored).not.toHaveProperty('receiverPassword');
  });

  it('list shows every subscription and its state, the password as set or none only; --json the same for scripts', async () => {
    const run = await push(['list']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      new RegExp(
        `^${first}\\tenabled\\tcredential=acme\\tclient=\\*\\turl=https://osn.acme.example/receiver\\treceiver-id=ossn-at-acme\\tpassword=set\\tcustomer-identifier=-\\tcreated=${time}\\tfrom=${time}$`,
      ),
    );
    expect(lines[1]).toMatch(/\tenabled\tcredential=acme\tclient=C2\turl=https:\/\/osn.acme.example\/other\treceiver-id=ossn\tpassword=none\tcustomer-identifier=ACME Corp\tcreated=.*\tfrom=2026-01-02T02:04:05.000Z$/);
    const json = await push(['list', '--json']);
    expect(json).toMatchObject({ code: 0, stderr: '' });
    const listed = JSON.parse(json.stdout) as Record<string, unknown>[];
    expect(listed[0]).toEqual({
      id: first,
      credentialId: 'acme',
      clientId: null,
      url: 'https://osn.acme.example/receiver',
      receiverId: 'ossn-at-acme',
      password: 'set',
      customerIdentifier: null,
      enabled: true,
      createdAt: expect.stringMatching(new RegExp(`^${time}$`)),
      cursorStart: expect.stringMatching(new RegExp(`^${time}$`)),
    });
    const sealed = (await store.find(first))!.receiverPassword!;
    for (const text of [run.stdout, json.stdout]) {
      expect(text).not.toContain(receiverPassword);
      expect(text).not.toContain(sealed.ciphertext);
    }
  });

  it('refuses a second subscription overlapping one there (the same credential and URL, a client in common), naming it', async () => {
    for (const client of [[], ['--client', 'C1']]) {
      const run = await push(['add', 'acme', '--url', 'https://OSN.acme.example:443/receiver', '--id', 'again', ...client], 'another-password\n');
      expect(run).toMatchObject({ code: 1, stdout: '' });
      expect(run.stderr).toBe(`ossn push: credential acme has a push subscription for all its clients to https://osn.acme.example/receiver already (${first})\n`);
    }
    const sameClient = await push(['add', 'acme', '--url', 'https://osn.acme.example/other', '--id', 'again', '--client', 'C2'], '\n');
    expect(sameClient).toMatchObject({ code: 1 });
    expect(sameClient.stderr).toContain('for client C2 to https://osn.acme.example/other already');
    expect(await store.list()).toHaveLength(2);
  });
});

describe('ossn push refusals', () => {
  it('refuses an unknown credential, one without the osn scope, and a client it is not linked to: exit 1, nothing stored', async () => {
    const runs = await Promise.all([
      push(['add', 'ghost', '--url', 'https://r.example/', '--id', 'x'], 'pw\n'),
      push(['add', 'globex', '--url', 'https://r.example/', '--id', 'x'], 'pw\n'),
      push(['add', 'acme', '--url', 'https://r.example/', '--id', 'x', '--client', 'C3'], 'pw\n'),
    ]);
    expect(runs.map((run) => [run.code, run.stdout, run.stderr])).toEqual([
      [1, '', 'ossn push: no credential with id ghost\n'],
      [1, '', 'ossn push: credential globex lacks the osn scope (shipment notifications): see ossn credentials set-scopes\n'],
      [1, '', 'ossn push: credential acme is not linked to C3: see ossn credentials link\n'],
    ]);
    expect((await store.list()).map((s) => s.url)).not.toContain('https://r.example/');
  });

  it('refuses a receiver URL against the policy, in one line that never quotes a password in it: exit 2, nothing stored', async () => {
    const cases: [string[], string][] = [
      [['--url', 'http://osn.partner.example/r'], 'the receiver URL must be https (http only to this machine: localhost, 127.0.0.0/8, ::1; or with --allow-http, for a trial)'],
      [['--url', 'https://user:url-secret-9@osn.partner.example/r'], 'the receiver URL must not carry a user or password (user:pass@): the receiver password is read from stdin'],
      [['--url', 'https://osn.partner.example/r#x'], 'the receiver URL must not have a fragment (#...): it is never sent to the receiver'],
      [['--url', 'https://osn.partner.example/r', '--from', 'yesterday'], '--from must be a date and time with its zone, like 2026-05-01T10:00:00Z; got "yesterday"'],
      [['--url', 'https://osn.partner.example/r', '--customer-identifier', 'a  b'], 'the customer identifier (--customer-identifier) must be 1 to 64 characters, without control characters, surrounding or doubled spaces (an XML token)'],
    ];
    const runs = await Promise.all(cases.map(([args]) => push(['add', 'acme', '--id', 'x', ...args], 'pw\n')));
    runs.forEach((run, i) => {
      expect(run).toMatchObject({ code: 2, stdout: '', stderr: `ossn push: ${cases[i]![1]}\n` });
      expect(run.stderr).not.toContain('url-secret-9');
    });
    expect((await store.list()).some((s) => s.url.includes('osn.partner.example'))).toBe(false);
  });

  it('takes http to this machine without --allow-http, and to another with it, saying it is plain http', async () => {
    const loopback = await push(['add', 'acme', '--url', 'http://127.0.0.1:8089/osn', '--id', 'x', '--client', 'C1'], '\n');
    expect(loopback).toMatchObject({ code: 0, stderr: '' });
    const trial = await push(['add', 'acme', '--url', 'http://trial.partner.example/osn', '--id', 'x', '--allow-http'], 'trial-pw\n');
    expect(trial).toMatchObject({
      code: 0,
      stderr: 'warning: the receiver URL is plain http: its password and the notifications cross the network in the clear (a trial only)\n',
    });
  });

  it('refuses a receiver password over 64 characters or with whitespace around it, never printing it: exit 2, nothing stored', async () => {
    for (const [input, message] of [
      [`${'p'.repeat(65)}\n`, 'the receiver password must be 1 to 64 characters (an empty line: none)'],
      [' spaced-secret-77\n', 'the receiver password must not begin or end with whitespace (a receiver would not read it)'],
    ] as const) {
      const run = await push(['add', 'acme', '--url', 'https://long.partner.example/r', '--id', 'x'], input);
      expect(run).toMatchObject({ code: 2, stdout: '', stderr: `ossn push: ${message}\n` });
      expect(run.stderr).not.toContain(input.trim());
    }
    expect((await store.list()).some((s) => s.url.includes('long.partner.example'))).toBe(false);
  });

  it('refuses to run without a key, with both key variables, or with a bad key, never quoting it: exit 2, nothing stored or asked', async () => {
    const without = await runOssn(['push', 'add', 'acme', '--url', 'https://nokey.example/r', '--id', 'x'], { ...baseEnv, OSSN_SECRET_KEY: '', OSSN_SECRET_KEY_FILE: '' }, { input: 'pw\n' });
    expect(without).toMatchObject({ code: 2, stdout: '' });
    expect(without.stderr).toContain('set OSSN_SECRET_KEY or OSSN_SECRET_KEY_FILE');
    const list = await runOssn(['push', 'list'], { ...baseEnv, OSSN_SECRET_KEY: '', OSSN_SECRET_KEY_FILE: '' });
    expect(list).toMatchObject({ code: 2, stdout: '' });
    const both = await push(['list'], '', { OSSN_SECRET_KEY_FILE: '/run/secrets/ossn-key' });
    expect(both).toMatchObject({ code: 2, stdout: '' });
    expect(both.stderr).toContain('OSSN_SECRET_KEY and OSSN_SECRET_KEY_FILE are both set: set one of them');
    const short = await push(['list'], '', { OSSN_SECRET_KEY: 'c2hvcnQta2V5LXNlY3JldA==' });
    expect(short).toMatchObject({ code: 2, stdout: '' });
    expect(short.stderr).toContain('OSSN_SECRET_KEY must be 32 bytes in base64 (openssl rand -base64 32) or in hex (64 hex digits); it holds 16 bytes');
    expect(short.stderr).not.toContain('c2hvcnQta2V5LXNlY3JldA');
    expect((await store.list()).some((s) => s.url.includes('nokey.example'))).toBe(false);
  });

  it('refuses an unknown option, an option of another action and a missing --url or --id: exit 2, one line', async () => {
    const runs = await Promise.all([
      push(['add', 'acme', '--url', 'https://r.example/', '--id', 'x', '--password', 'argv-secret-5']),
      push(['list', '--client', 'C1']),
      push(['disable', 'ps-x', '--json']),
      push(['add', 'acme', '--id', 'x']),
      push(['add', 'acme', '--url', 'https://r.example/']),
      push(['remove']),
      push(['test', 'ps-x']),
    ]);
    expect(runs.map((run) => [run.code, run.stdout, run.stderr])).toEqual([
      [2, '', 'ossn push add: unknown option --password (see ossn push --help)\n'],
      [2, '', 'ossn push list: unknown option --client (see ossn push --help)\n'],
      [2, '', 'ossn push disable: unknown option --json (see ossn push --help)\n'],
      [2, '', 'ossn push add: missing --url (see ossn push --help)\n'],
      [2, '', 'ossn push add: missing --id (see ossn push --help)\n'],
      [2, '', 'ossn push remove: missing <subscriptionId> (see ossn push --help)\n'],
      [2, '', 'ossn push: unknown action "test" (one of add, list, disable, enable, remove; see ossn push --help)\n'],
    ]);
  });

  it('--help lists only the actions there are, and offers no password option', async () => {
    const help = await push(['--help']);
    expect(help).toMatchObject({ code: 0, stderr: '' });
    const actions = [...help.stdout.matchAll(/^ossn push (\w+)/gm)].map((m) => m[1]);
    expect(actions).toEqual(['add', 'list', 'disable', 'enable', 'remove']);
    expect(help.stdout).not.toMatch(/--password|\b(parked|redeliver)\b/);
    expect(help.stdout).toContain('stdin');
  });
});

describe('ossn push disable, enable and remove', () => {
  it('disable and enable change the state list shows; remove deletes; an unknown id is refused by name', async () => {
    const [subscription] = await store.list();
    const id = subscription!.id;
    expect(await push(['disable', id])).toMatchObject({ code: 0, stdout: `push subscription ${id} disabled\n`, stderr: '' });
    expect((await store.find(id))?.enabled).toBe(false);
    expect((await push(['list'])).stdout).toContain(`${id}\tdisabled\t`);
    expect((await store.listEnabled()).map((s) => s.id)).not.toContain(id);
    expect(await push(['enable', id])).toMatchObject({ code: 0, stdout: `push subscription ${id} enabled\n` });
    expect((await store.find(id))?.enabled).toBe(true);
    expect(await push(['remove', id])).toMatchObject({ code: 0, stdout: `push subscription ${id} removed\n` });
    expect(await store.find(id)).toBeUndefined();
    for (const action of ['disable', 'enable', 'remove']) {
      expect(await push([action, id])).toMatchObject({ code: 1, stdout: '', stderr: `ossn push: no push subscription with id ${id}\n` });
    }
  });
});
