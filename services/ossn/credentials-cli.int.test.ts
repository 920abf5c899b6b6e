import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOssn } from '../../test/support/ossn-cli.js';
import { testEnvironment, uniqueNames } from '../../test/support/servers.js';
import { CachingAuthenticator } from '../domain/credentials/authenticator.js';
import { RecordingLastUse } from '../domain/credentials/last-used.js';
import { createLogger } from '../plumbing/logging/logger.js';
import { CredentialStore, credentialsCollection } from '../adapters/mongodb/credential-store.js';
import { connectMongo } from '../adapters/mongodb/connect.js';
import { readModelCollections } from '../adapters/mongodb/documents.js';

// The real command line (`node bin/ossn.mjs credentials ...`) as an operator runs it, against a
// database of this file's own; verification goes through the query service's authenticator.

const env = testEnvironment();
const database = uniqueNames('credentials-cli').database;
let mongo: MongoClient;
let store: CredentialStore;

/** Clients with orders in the read models: the ones `add` and `link` take without --force. */
const knownClients = ['C1', 'C2', 'C3', 'C4', 'C5'];

beforeAll(async () => {
  mongo = await connectMongo(env.mongodbUri, 'credentials-cli-test');
  store = new CredentialStore(credentialsCollection(mongo.db(database)));
  const { orderStatus } = readModelCollections(mongo.db(database), 1);
  // Only the client id matters to the check; C5's order is known by its shipments alone.
  await orderStatus.insertMany(knownClients.slice(0, 4).map((clientId) => ({ _id: `${clientId}:SO-1`, clientId }) as never));
  await readModelCollections(mongo.db(database), 1).shipments.insertOne({ _id: 'C5:SO-1', clientId: 'C5' } as never);
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
    const run = await ossn(['credentials', 'add', 'acme', '--scopes', 'osn', '--clients', 'C4', '--generate']);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('credential acme already exists');
    expect(run.stdout).not.toContain('password');
    expect(await store.find('acme')).toMatchObject({ scopes: ['order_status', 'osn'], clientIds: ['C1', 'C2'] });
  });

  it('list shows each credential with state, scopes, clients, when it was created and last used, and no hash', async () => {
    const run = await ossn(['credentials', 'list']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const time = '\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z';
    expect(run.stdout).toMatch(
      new RegExp(`^acme\\tactive\\tscopes=order_status,osn\\tclients=C1,C2\\tcreated=${time}\\tlast-used=never\\nglobex\\tactive\\tscopes=osn\\tclients=C3\\tcreated=${time}\\tlast-used=never\\n$`),
    );
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

  it('never takes a password from argv: the help offers none, and --password is refused without echoing it', async () => {
    const usage = await ossn(['credentials']);
    expect(usage.code).toBe(2);
    const help = await ossn(['credentials', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('ossn credentials add <id>');
    expect(help.stdout).toContain('stdin');
    expect(help.stdout).not.toMatch(/--password|-p\b/);

    const secret = 'argv-secret-42';
    for (const args of [
      ['--password', secret],
      [`--password=${secret}`],
      ['-p', secret],
    ]) {
      const run = await ossn(['credentials', 'add', 'hooli', '--scopes', 'osn', '--clients', 'C1', ...args], `${secret}\n`);
      expect(run.code).not.toBe(0);
      expect(run.stderr).toMatch(/^ossn credentials add: unknown option (--password|-p)\b/);
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
    expect((await ossn(['credentials', 'list'])).stdout).toContain('wayne\tactive\tscopes=order_status\tclients=C2\t');
  });

  it('unlink refuses a client not linked or an unknown id by name, changing nothing', async () => {
    const typo = await ossn(['credentials', 'unlink', 'wayne', '--clients', 'C2,C7']);
    expect(typo).toMatchObject({ code: 1, stdout: '', stderr: 'ossn credentials: credential wayne is not linked to C7\n' });
    expect((await store.find('wayne'))?.clientIds).toEqual(['C2']);

    const ghost = await ossn(['credentials', 'unlink', 'ghost', '--clients', 'C1']);
    expect(ghost).toMatchObject({ code: 1, stderr: 'ossn credentials: no credential with id ghost\n' });
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
    expect(ghost).toMatchObject({ code: 1, stderr: 'ossn credentials: no credential with id ghost\n' });
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
    expect(short).toMatchObject({ code: 2, stderr: 'ossn credentials: the password must be 16 to 64 characters (--generate makes one)\n' });
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
    expect(generated).toMatchObject({ code: 1, stdout: '', stderr: 'ossn credentials: no credential with id ghost\n' });
    const typed = await ossn(['credentials', 'reset-password', 'ghost'], 'typed-pw\n');
    expect(typed).toMatchObject({ code: 1, stdout: '', stderr: 'ossn credentials: no credential with id ghost\n' });
    expect(await store.find('ghost')).toBeNull();
  });

  it('list shows every change and no password, hash, salt or key', async () => {
    const run = await ossn(['credentials', 'list']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toContain('wayne\tactive\tscopes=osn\tclients=C2\t');
    expect(run.stdout).toContain('kent\tactive\tscopes=osn\tclients=C5\t');
    expect(run.stdout).not.toContain('scrypt');
    for (const credential of await store.list()) {
      for (const part of await hashParts(credential.id)) expect(run.stdout).not.toContain(part);
    }
  });

  it('refuses an option of another action instead of ignoring it, changing nothing', async () => {
    const run = await ossn(['credentials', 'reset-password', 'kent', '--clients', 'C1'], 'not-taken\n');
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('ossn credentials reset-password: unknown option --clients (see ossn credentials --help)\n');
    expect(await verify('kent', 'not-taken')).toBeUndefined();
    const disable = await ossn(['credentials', 'disable', 'kent', '--scopes', 'osn']);
    expect(disable.code).toBe(2);
    expect(disable.stderr).toContain('ossn credentials disable: unknown option --scopes');
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

describe('ossn credentials: checks, removal, overlap and use', () => {
  it('add and link refuse a client with no order in the read models, naming it, unless --force', async () => {
    const typo = await ossn(['credentials', 'add', 'oscorp', '--scopes', 'osn', '--clients', 'C1,C9', '--generate']);
    expect(typo.code).toBe(1);
    expect(typo.stdout).toBe('');
    expect(typo.stderr).toBe(
      `ossn credentials: no order of client C9 in the read models (database ${database}): check the id, or give --force to add a client whose orders have not come yet\n`,
    );
    expect(await store.find('oscorp')).toBeNull();

    expect((await ossn(['credentials', 'add', 'oscorp', '--scopes', 'osn', '--clients', 'C1', '--generate'])).code).toBe(0);
    const link = await ossn(['credentials', 'link', 'oscorp', '--clients', 'C8']);
    expect(link.code).toBe(1);
    expect(link.stderr).toContain('no order of client C8 in the read models');
    expect((await store.find('oscorp'))?.clientIds).toEqual(['C1']);

    expect((await ossn(['credentials', 'link', 'oscorp', '--clients', 'C8', '--force'])).code).toBe(0);
    expect((await store.find('oscorp'))?.clientIds).toEqual(['C1', 'C8']);
  });

  it('remove deletes a credential: it no longer authenticates, and an unknown id is refused', async () => {
    const run = await ossn(['credentials', 'remove', 'oscorp']);
    expect(run).toMatchObject({ code: 0, stdout: 'credential oscorp removed\n', stderr: '' });
    expect(await store.find('oscorp')).toBeNull();
    expect((await ossn(['credentials', 'list'])).stdout).not.toContain('oscorp');
    expect(await ossn(['credentials', 'remove', 'oscorp'])).toMatchObject({ code: 1, stderr: 'ossn credentials: no credential with id oscorp\n' });
  });

  it('reset-password --keep-old-for keeps the old password working beside the new one until then, and list says until when', async () => {
    const old = 'lex-old-password';
    expect((await ossn(['credentials', 'add', 'lex', '--scopes', 'osn', '--clients', 'C2'], `${old}\n`)).code).toBe(0);
    const fresh = 'lex-new-password';
    const before = Date.now();
    const run = await ossn(['credentials', 'reset-password', 'lex', '--keep-old-for', '2h'], `${fresh}\n`);
    expect(run.code).toBe(0);
    const until = /the old one works too until (\S+)\n$/.exec(run.stdout)?.[1];
    expect(new Date(until!).getTime()).toBeGreaterThanOrEqual(before + 2 * 3_600_000);
    expect(await verify('lex', old)).toMatchObject({ id: 'lex' });
    expect(await verify('lex', fresh)).toMatchObject({ id: 'lex' });
    expect((await ossn(['credentials', 'list'])).stdout).toContain(`\told-password-until=${until!}\n`);

    // A query service's clock past the overlap: the old password is refused, also from its cache.
    let now = Date.now();
    const service = new CachingAuthenticator(store, { now: () => now });
    expect(await service.verify('lex', old)).toMatchObject({ id: 'lex' });
    now = new Date(until!).getTime() + 1;
    expect(await service.verify('lex', old)).toBeUndefined();
    expect(await service.verify('lex', fresh)).toMatchObject({ id: 'lex' });

    // Without the option the old password ends at once, as before.
    expect((await ossn(['credentials', 'reset-password', 'lex'], 'lex-third-password\n')).code).toBe(0);
    expect(await verify('lex', fresh)).toBeUndefined();
    expect((await ossn(['credentials', 'list'])).stdout).not.toContain('old-password-until');
    expect((await ossn(['credentials', 'reset-password', 'lex', '--keep-old-for', 'forever'], 'x\n')).code).toBe(2);
  });

  it('list shows when a query service last let the credential in, also as JSON', async () => {
    const service = new RecordingLastUse(new CachingAuthenticator(store), store, createLogger('test', 'silent'));
    expect(await service.verify('lex', 'lex-third-password')).toMatchObject({ id: 'lex' });
    await expect.poll(async () => (await store.find('lex'))?.lastUsedAt, { timeout: 5_000 }).toBeInstanceOf(Date);
    const used = (await store.find('lex'))!.lastUsedAt!.toISOString();
    expect((await ossn(['credentials', 'list'])).stdout).toMatch(new RegExp(`^lex\\tactive\\t.*\\tlast-used=${used.replace(/\./g, '\\.')}$`, 'm'));

    const json = await ossn(['credentials', 'list', '--json']);
    expect(json.code).toBe(0);
    const lex = (JSON.parse(json.stdout) as { id: string }[]).find((c) => c.id === 'lex');
    expect(lex).toEqual({ id: 'lex', scopes: ['osn'], clientIds: ['C2'], active: true, createdAt: expect.any(String), lastUsedAt: used, previousPasswordUntil: null });
    expect(json.stdout).not.toContain('scrypt');
  });

  it('a password typed at a terminal is not shown, and is asked twice', { timeout: 60_000 }, async () => {
    const password = 'typed-at-a-terminal-42';
    const run = await atTerminal(['credentials', 'add', 'tty', '--scopes', 'osn', '--clients', 'C3'], [password, password]);
    expect(run.output).toContain('password (not shown): ');
    expect(run.output).toContain('the same again: ');
    expect(run.output).toContain('added credential tty');
    expect(run.output).not.toContain(password);
    expect(await verify('tty', password)).toMatchObject({ id: 'tty' });

    const differ = await atTerminal(['credentials', 'reset-password', 'tty'], ['one-password-1', 'another-pass-2']);
    expect(differ.output).toContain('the two passwords differ; nothing changed');
    expect(await verify('tty', password)).toMatchObject({ id: 'tty' });
  });
});

/**
 * Runs `ossn <args>` on a pseudo-terminal (util-linux `script`), typing each answer once its prompt
 * shows: what the terminal shows comes back, the typed characters included if they are echoed.
 */
function atTerminal(args: string[], answers: string[]): Promise<{ output: string; code: number | null }> {
  const entry = fileURLToPath(new URL('../../bin/ossn.mjs', import.meta.url));
  const command = [process.execPath, entry, ...args].map((a) => `'${a}'`).join(' ');
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    env: { ...process.env, MONGODB_URI: env.mongodbUri, MONGODB_DATABASE: database, LOG_LEVEL: 'silent' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  let answered = 0;
  const prompts = /password \(not shown\): |the same again: /g;
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
    const asked = output.match(prompts)?.length ?? 0;
    while (answered < asked && answered < answers.length) child.stdin.write(`${answers[answered++]}\r`);
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`ossn ${args.join(' ')} on a terminal did not end; it showed: ${output}`));
    }, 30_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ output, code });
    });
  });
}
