import type { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErpEvent } from '../../contracts/erp-events.js';
import { foldEvents } from '../../projections/fold.js';
import { startReceiver, type Behaviour, type Receiver } from '../../scripts/receiver/receiver.js';
import { locationRecorded, packageShipped, statusChanged } from '../../test/fixtures/sample-events.js';
import { runOssn } from '../../test/support/ossn-cli.js';
import { testEnvironment, uniqueNames } from '../../test/support/servers.js';
import { decodeSecretKey, type SecretKey } from '../config/secret-key.js';
import { CredentialStore, credentialsCollection } from '../adapters/mongodb/credential-store.js';
import { connectMongo } from '../adapters/mongodb/connect.js';
import { ensureIndexes, readModelCollections } from '../adapters/mongodb/documents.js';
import { MongoPushCursors, pushCursorsCollection } from '../adapters/mongodb/push-cursors.js';
import { MongoPushDeliveries, type AttemptRecord, type AttemptStep } from '../adapters/mongodb/push-deliveries.js';
import { MongoPushSubscriptions, pushSubscriptionsCollection } from '../adapters/mongodb/push-subscriptions.js';
import { writeEffects } from '../adapters/mongodb/writes.js';
import { newPushSubscription } from '../domain/push/new-subscription.js';
import { openReceiverPassword, ReceiverPassword } from '../domain/push/receiver-password.js';
import type { PushSubscription } from '../domain/push/subscription.js';

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
  await mongo?.db(database).dropDatabase();
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
      push(['retry', 'ps-x']),
      push(['parked', '--purchase-order', 'PO-1']),
      push(['redeliver']),
      push(['test', 'ps-x', '--json']),
    ]);
    expect(runs.map((run) => [run.code, run.stdout, run.stderr])).toEqual([
      [2, '', 'ossn push add: unknown option --password (see ossn push --help)\n'],
      [2, '', 'ossn push list: unknown option --client (see ossn push --help)\n'],
      [2, '', 'ossn push disable: unknown option --json (see ossn push --help)\n'],
      [2, '', 'ossn push add: missing --url (see ossn push --help)\n'],
      [2, '', 'ossn push add: missing --id (see ossn push --help)\n'],
      [2, '', 'ossn push remove: missing <subscriptionId> (see ossn push --help)\n'],
      [2, '', 'ossn push: unknown action "retry" (one of add, list, disable, enable, remove, parked, redeliver, test; see ossn push --help)\n'],
      [2, '', 'ossn push parked: unknown option --purchase-order (see ossn push --help)\n'],
      [2, '', 'ossn push redeliver: missing <subscriptionId> (see ossn push --help)\n'],
      [2, '', 'ossn push test: unknown option --json (see ossn push --help)\n'],
    ]);
  });

  it('--help lists only the actions there are, and offers no password option', async () => {
    const help = await push(['--help']);
    expect(help).toMatchObject({ code: 0, stderr: '' });
    const actions = [...help.stdout.matchAll(/^ossn push (\w+)/gm)].map((m) => m[1]);
    expect(actions).toEqual(['add', 'list', 'disable', 'enable', 'remove', 'parked', 'redeliver', 'test']);
    expect(help.stdout).not.toMatch(/--password/);
    expect(help.stdout).toContain('stdin');
  });
});

describe('ossn push disable, enable and remove', () => {
  it('disable and enable change the state list shows; remove deletes it, its cursor and deliveries; an unknown id is refused by name', async () => {
    const [subscription] = await store.list();
    const id = subscription!.id;
    const db = mongo.db(database);
    await new MongoPushCursors(pushCursorsCollection(db)).acquire(id, 'a-pusher', 60_000);
    await MongoPushDeliveries.of(db).recordNews(id, 'C1', ['PO-R'], new Date());
    expect(await push(['disable', id])).toMatchObject({ code: 0, stdout: `push subscription ${id} disabled\n`, stderr: '' });
    expect((await store.find(id))?.enabled).toBe(false);
    expect((await push(['list'])).stdout).toContain(`${id}\tdisabled\t`);
    expect((await store.listEnabled()).map((s) => s.id)).not.toContain(id);
    expect(await push(['enable', id])).toMatchObject({ code: 0, stdout: `push subscription ${id} enabled\n` });
    expect((await store.find(id))?.enabled).toBe(true);
    expect(await push(['remove', id])).toMatchObject({ code: 0, stdout: `push subscription ${id} removed\n` });
    expect(await store.find(id)).toBeUndefined();
    expect(await pushCursorsCollection(db).countDocuments({ _id: id })).toBe(0);
    expect(await db.collection('push_deliveries').countDocuments({ subscriptionId: id })).toBe(0);
    for (const action of ['disable', 'enable', 'remove']) {
      expect(await push([action, id])).toMatchObject({ code: 1, stdout: '', stderr: `ossn push: no push subscription with id ${id}\n` });
    }
  });
});

/** A subscription stored as `push add` stores it, for a credential of its own (no overlap with the others here). */
async function subscribed(credentialId: string, url: string, options: { clientIds?: string[]; password?: string; enabled?: boolean } = {}): Promise<PushSubscription> {
  const credentials = new CredentialStore(credentialsCollection(mongo.db(database)));
  if (!(await credentials.find(credentialId))) await credentials.add({ id: credentialId, passwordHash: 'scrypt$x', scopes: ['osn'], clientIds: options.clientIds ?? ['C1'] });
  const subscription = newPushSubscription(
    { credentialId, url, receiverId: 'ossn-test', cursorStart: new Date(Date.now() - 60_000) },
    { key, now: new Date(), ...(options.password === undefined ? {} : { password: new ReceiverPassword(options.password) }) },
  );
  await store.add(subscription);
  if (options.enabled === false) await store.setEnabled(subscription.id, false);
  return subscription;
}

const refusedAt = new Date('2026-03-01T10:00:00Z');
const refusal = (reason: string): AttemptRecord => ({ at: refusedAt, outcome: 'refused', status: 200, reason, news: 1, durationMs: 12 });

/** Deliveries of these purchase orders with news, each then parked, delivered or left pending, as the pusher records them. */
async function deliveriesOf(subscriptionId: string, steps: Record<string, AttemptStep | 'pending'>, newsAt = new Date('2026-03-01T09:00:00Z')) {
  const deliveries = MongoPushDeliveries.of(mongo.db(database));
  await deliveries.recordNews(subscriptionId, 'C1', Object.keys(steps), newsAt);
  const documents = await mongo.db(database).collection('push_deliveries').find({ subscriptionId }).toArray();
  for (const [purchaseOrderNumber, step] of Object.entries(steps)) {
    if (step === 'pending') continue;
    const delivery = documents.find((d) => d['purchaseOrderNumber'] === purchaseOrderNumber) as never;
    const attempt: AttemptRecord = 'park' in step ? refusal(step.park) : { at: refusedAt, outcome: 'acknowledged', transactionId: 't-1', news: 1, durationMs: 9 };
    await deliveries.attempted(delivery, attempt, step);
  }
}

describe('ossn push parked and redeliver', () => {
  const reason = 'refused 3 times: service message Error 105: Authentication Credentials failed';

  it('parked lists the parked deliveries, of all subscriptions or one, with since when news waits, attempts and the reason; --json the same', async () => {
    const first = await subscribed('parker-1', 'https://parked-1.example/r', { password: 'parked-receiver-pw' });
    const second = await subscribed('parker-2', 'https://parked-2.example/r');
    await deliveriesOf(first.id, { 'PO-P1': { park: reason }, 'PO-P2': { park: 'HTTP 404' }, 'PO-OK': { done: 'delivered', digest: 'd' }, 'PO-W': 'pending' });
    await deliveriesOf(second.id, { 'PO-P3': { park: reason } }, new Date('2026-02-01T00:00:00Z'));

    const all = await push(['parked']);
    expect(all).toMatchObject({ code: 0, stderr: '' });
    const lines = all.stdout.trimEnd().split('\n');
    // Oldest news first: the second subscription's came a month before.
    expect(lines.map((line) => line.split('\t').slice(0, 3).join(' '))).toEqual([
      `${second.id} client=C1 purchase-order=PO-P3`,
      `${first.id} client=C1 purchase-order=PO-P1`,
      `${first.id} client=C1 purchase-order=PO-P2`,
    ]);
    expect(lines[1]).toBe(
      `${first.id}\tclient=C1\tpurchase-order=PO-P1\tnews-since=2026-03-01T09:00:00.000Z\tattempts=1\tlast=2026-03-01T10:00:00.000Z refused HTTP 200\treason=${reason}`,
    );

    const one = await push(['parked', first.id, '--json']);
    expect(one).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(one.stdout)).toEqual([
      {
        subscriptionId: first.id,
        clientId: 'C1',
        purchaseOrderNumber: 'PO-P1',
        newsSince: '2026-03-01T09:00:00.000Z',
        attempts: 1,
        lastAttempt: { at: '2026-03-01T10:00:00.000Z', outcome: 'refused', status: 200 },
        reason,
      },
      expect.objectContaining({ purchaseOrderNumber: 'PO-P2', reason: 'HTTP 404' }),
    ]);
    for (const text of [all.stdout, one.stdout]) expect(text).not.toContain('parked-receiver-pw');
    expect(await push(['parked', 'ps-unknown'])).toMatchObject({ code: 1, stdout: '', stderr: 'ossn push: no push subscription with id ps-unknown\n' });
  });

  it('redeliver makes parked deliveries pending again, due at once with fresh attempts (one purchase order, or all), and says how many', async () => {
    const subscription = await subscribed('redeliverer', 'https://redeliver.example/r');
    await deliveriesOf(subscription.id, { 'PO-R1': { park: reason }, 'PO-R2': { park: reason }, 'PO-R3': { park: reason }, 'PO-OK': { done: 'delivered', digest: 'd' } });
    const state = async () =>
      Object.fromEntries(
        (await mongo.db(database).collection('push_deliveries').find({ subscriptionId: subscription.id }).toArray()).map((d) => [d['purchaseOrderNumber'], `${d['state']}/${d['attempts']}`]),
      );

    const one = await push(['redeliver', subscription.id, '--purchase-order', 'PO-R1']);
    expect(one).toEqual({
      code: 0,
      stdout: `1 parked delivery of push subscription ${subscription.id} (purchase order PO-R1) pending again: the pusher sends each one's latest picture\n`,
      stderr: '',
    });
    expect(await state()).toEqual({ 'PO-R1': 'pending/0', 'PO-R2': 'parked/1', 'PO-R3': 'parked/1', 'PO-OK': 'delivered/0' });
    const due = await MongoPushDeliveries.of(mongo.db(database)).due(subscription.id, new Date(), 10);
    expect(due.map((d) => d.purchaseOrderNumber)).toEqual(['PO-R1']);

    const rest = await push(['redeliver', subscription.id]);
    expect(rest.stdout).toBe(`2 parked deliveries of push subscription ${subscription.id} pending again: the pusher sends each one's latest picture\n`);
    expect(await state()).toEqual({ 'PO-R1': 'pending/0', 'PO-R2': 'pending/0', 'PO-R3': 'pending/0', 'PO-OK': 'delivered/0' });
    expect((await push(['parked', subscription.id])).stdout).toBe('');
    expect(await push(['redeliver', 'ps-unknown'])).toMatchObject({ code: 1, stderr: 'ossn push: no push subscription with id ps-unknown\n' });
  });
});

/** Orders of client C1 in the read models (version 1) as the projector writes them: each with a shipped package unless said. */
async function ordersInReadModels(orders: { so: string; po: string; shipped: boolean }[]): Promise<void> {
  const events: ErpEvent[] = orders.flatMap(({ so, po, shipped }) =>
    [statusChanged(1, { purchaseOrderNumber: po, statusId: 60 }), ...(shipped ? [locationRecorded(2, 1), packageShipped(3, 1, 1)] : [])].map((event) => ({ ...event, salesOrderNumber: so })),
  );
  const folded = foldEvents(events);
  const collections = readModelCollections(mongo.db(database), 1);
  await ensureIndexes(collections);
  await writeEffects(collections, { orderStatus: [...folded.orderStatus.values()].map((after) => ({ after })), shipments: [...folded.shipments.values()].map((after) => ({ after })) });
}

describe('ossn push test', () => {
  const receivers: Receiver[] = [];
  const receiverPw = 'trial-Receiver-pw-3';
  const receiver = async (behaviour: Behaviour = 'accept') => {
    const started = await startReceiver({ login: { id: 'ossn-test', password: receiverPw }, behaviour: () => behaviour });
    receivers.push(started);
    return started;
  };
  afterAll(async () => {
    for (const r of receivers) await r.close();
  });
  beforeAll(async () => {
    await ordersInReadModels([
      { so: 'SO-T1', po: 'PO-T1', shipped: true },
      { so: 'SO-T2', po: 'PO-NOPKG', shipped: false },
    ]);
  });

  const acknowledged = (stdout: string) => /^acknowledged, HTTP 200: transactionId (\S+)$/m.exec(stdout)?.[1];

  it('sends the purchase order given, as the pusher would, and prints the receiver\'s acknowledgement with its transactionId: exit 0, nothing recorded', async () => {
    const r = await receiver();
    const subscription = await subscribed('tester-ok', r.url, { password: receiverPw });
    const run = await push(['test', subscription.id, '--purchase-order', 'PO-T1']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout.split('\n')[0]).toBe(`sent purchase order PO-T1 of client C1 to ${r.url}`);
    expect(r.accepted.map((a) => a.notification['purchaseOrderNumber'])).toEqual(['PO-T1']);
    expect(acknowledged(run.stdout)).toBe(r.accepted[0]?.transactionId);
    expect(JSON.stringify(r.accepted[0]?.notification)).toContain('"trackingNumber"');
    expect(run.stdout).not.toContain(receiverPw);
    expect(await mongo.db(database).collection('push_deliveries').countDocuments({ subscriptionId: subscription.id })).toBe(0);

    // Without a purchase order: one with a package the subscription pushes for (PO-NOPKG has none).
    const any = await push(['test', subscription.id]);
    expect(any).toMatchObject({ code: 0, stderr: '' });
    expect(any.stdout.split('\n')[0]).toBe(`sent purchase order PO-T1 of client C1 to ${r.url}`);
    expect(acknowledged(any.stdout)).toBe(r.accepted[1]?.transactionId);
  });

  it('prints a refusal (a wrong receiver password) and a transient failure (503, no answer at all) with the HTTP status: exit 1, the password never shown', async () => {
    const accepting = await receiver();
    const wrong = await subscribed('tester-wrong', accepting.url, { password: 'wrong-Receiver-pw-9' });
    const refused = await push(['test', wrong.id, '--purchase-order', 'PO-T1']);
    expect(refused).toMatchObject({ code: 1, stderr: '' });
    expect(refused.stdout.split('\n')[1]).toBe('refused, HTTP 200: service message Error 105: Authentication Credentials failed');
    expect(refused.stdout).not.toContain('wrong-Receiver-pw-9');
    expect(accepting.accepted).toEqual([]);

    const unavailable = await receiver('unavailable');
    const busy = await subscribed('tester-busy', unavailable.url, { password: receiverPw });
    const transient = await push(['test', busy.id, '--purchase-order', 'PO-T1']);
    expect(transient).toMatchObject({ code: 1, stderr: '' });
    expect(transient.stdout.split('\n')[1]).toMatch(/^transient, HTTP 503: HTTP 503 \(the receiver asks for no retry before \S+Z\)$/);

    const gone = await subscribed('tester-gone', 'http://127.0.0.1:1/osn', { password: receiverPw });
    const noAnswer = await push(['test', gone.id]);
    expect(noAnswer).toMatchObject({ code: 1, stderr: '' });
    expect(noAnswer.stdout.split('\n')[1]).toMatch(/^transient, no HTTP answer: /);
  });

  it('sends nothing, exit 1, when the purchase order has no package, no purchase order has one, or the subscription pushes for no client', async () => {
    const r = await receiver();
    const subscription = await subscribed('tester-none', r.url, { password: receiverPw });
    expect(await push(['test', subscription.id, '--purchase-order', 'PO-NOPKG'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'ossn push: purchase order PO-NOPKG has no package to show for client C1: nothing to send (a notification needs one)\n',
    });
    const elsewhere = await subscribed('tester-c9', r.url, { clientIds: ['C9'] });
    expect(await push(['test', elsewhere.id])).toMatchObject({
      code: 1,
      stderr: 'ossn push: no purchase order of client C9 has a package to show: nothing to send (a notification needs one)\n',
    });
    await new CredentialStore(credentialsCollection(mongo.db(database))).setActive('tester-c9', false);
    expect(await push(['test', elsewhere.id])).toMatchObject({ code: 1, stderr: `ossn push: push subscription ${elsewhere.id} pushes for no client now: its credential tester-c9 is disabled\n` });
    expect(await push(['test', 'ps-unknown'])).toMatchObject({ code: 1, stderr: 'ossn push: no push subscription with id ps-unknown\n' });
    expect(r.requests).toBe(0);
  });
});

describe('ossn status, push subscriptions', () => {
  it('shows each subscription: enabled, pending, parked and delivered, its lag, its lease and whether it is live; --json the same', async () => {
    const db = mongo.db(database);
    const worked = await subscribed('status-worked', 'https://status-worked.example/r');
    const unworked = await subscribed('status-unworked', 'https://status-unworked.example/r');
    const disabled = await subscribed('status-disabled', 'https://status-disabled.example/r', { enabled: false });
    await deliveriesOf(worked.id, { 'PO-1': 'pending', 'PO-2': 'pending', 'PO-3': { park: 'HTTP 404' }, 'PO-4': { done: 'delivered', digest: 'd' } }, new Date(Date.now() - 90_000));
    const cursors = new MongoPushCursors(pushCursorsCollection(db));
    await cursors.acquire(worked.id, 'host-a/42/abc', 600_000);
    // A pusher killed: its lease lapsed a moment after it was taken.
    await cursors.acquire(unworked.id, 'host-b/7/def', 1);

    const variables = { ...baseEnv, KAFKA_BROKERS: env.kafkaBrokers.join(','), OSSN_TOPIC: uniqueNames('push-status').topic };
    await new Promise((resolve) => setTimeout(resolve, 50));
    const screen = await runOssn(['status'], variables);
    const line = (id: string) => screen.stdout.split('\n').find((l) => l.includes(id)) ?? '';
    expect(screen.stdout).toContain('\npush subscriptions\n');
    expect(line(worked.id)).toMatch(
      new RegExp(`^  ${worked.id} +enabled +2 pending, 1 parked \\(ossn push parked\\), 1 delivered; lag 1m\\d\\ds; lease host-a/42/abc \\(live until ${time}\\)$`),
    );
    expect(line(unworked.id)).toMatch(/ enabled +0 pending, 0 parked, 0 delivered; lag \S+; lease host-b\/7\/def \(lapsed at .*\); NOT PUSHED: no pusher holds its lease/);
    expect(line(disabled.id)).toMatch(/ disabled +0 pending, 0 parked, 0 delivered; lag \S+; no lease$/);

    const json = await runOssn(['status', '--json'], variables);
    const report = JSON.parse(json.stdout) as { push: { ok: boolean; value: { id: string }[] } };
    expect(report.push.ok).toBe(true);
    expect(report.push.value.find((s) => s.id === worked.id)).toEqual({
      id: worked.id,
      enabled: true,
      pending: 2,
      parked: 1,
      delivered: 1,
      lagMs: expect.any(Number),
      lease: { owner: 'host-a/42/abc', until: expect.stringMatching(new RegExp(`^${time}$`)), live: true },
    });
    expect(report.push.value.find((s) => s.id === unworked.id)).toMatchObject({ lease: { owner: 'host-b/7/def', live: false } });
    expect(report.push.value.find((s) => s.id === disabled.id)).toMatchObject({ enabled: false, lease: null });
  });
});
