// ossn deployed on the cluster the way an operator deploys it, every part a process of its own:
// `ossn setup`, credentials made with `ossn credentials`, two `ossn projector` in one consumer
// group, and two `ossn serve` behind one address (a round-robin proxy). Each part can be killed
// with SIGKILL and started again.
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../../support/free-port.js';
import { runOssn, startOssn, type OssnProcess } from '../../support/ossn-cli.js';
import type { Partner } from './partners.js';
import { startRoundRobinProxy, type RoundRobinProxy } from './round-robin-proxy.js';

export interface OssnSystemOptions {
  kafkaBrokers: string[];
  mongodbUri: string;
  redisUrl: string;
  database: string;
  topic: string;
  /** OSSN_CONSUMER_GROUP of the projectors. */
  group: string;
  /** STORE_TIMEOUT_MS of the query services. */
  storeTimeoutMs: number;
  /** Requests per credential and window, and the window (RATE_LIMIT_PER_MINUTE, RATE_LIMIT_WINDOW_MS). */
  rateLimit: { perWindow: number; windowMs: number };
  /** OSSN_CONSUMER_SESSION_TIMEOUT_MS: how soon the group hands a killed projector's partitions on. */
  consumerSessionTimeoutMs: number;
}

/** A rate-limit log line of a query service, with its time. */
export interface StoreLogLine {
  time: number;
  msg: string;
}

export interface QueryService {
  port: number;
  opsPort: number;
  process: OssnProcess;
  /** Its lines about the rate-limit store (Redis), as they came. */
  storeLines: StoreLogLine[];
}

const fail = (what: string, run: { code: number | null; stdout: string; stderr: string }) =>
  new Error(`${what} failed (exit ${run.code}): ${run.stdout}${run.stderr}`);

export class OssnSystem {
  readonly projectors: OssnProcess[] = [];
  readonly services: QueryService[] = [];
  private proxy: RoundRobinProxy | undefined;

  constructor(private readonly options: OssnSystemOptions) {}

  /** The variables every `ossn` command of this system is given. */
  get env(): Record<string, string> {
    const { kafkaBrokers, mongodbUri, database, topic } = this.options;
    return { KAFKA_BROKERS: kafkaBrokers.join(','), MONGODB_URI: mongodbUri, MONGODB_DATABASE: database, OSSN_TOPIC: topic, LOG_LEVEL: 'warn' };
  }

  /** The one address partners use. */
  get url(): string {
    if (!this.proxy) throw new Error('the system has not started');
    return this.proxy.url;
  }

  /** `ossn setup`, then each partner's credential with `ossn credentials add`, its password on stdin. */
  async setUp(partners: Partner[]): Promise<void> {
    const setup = await runOssn(['setup'], this.env);
    if (setup.code !== 0) throw fail('ossn setup', setup);
    for (const partner of partners) {
      // --force: the suite adds its partners before the ERP stream has brought their clients' orders.
      const add = await runOssn(['credentials', 'add', partner.id, '--scopes', 'order_status,osn', '--clients', partner.clientIds.join(','), '--force'], this.env, {
        input: `${partner.password}\n`,
      });
      if (add.code !== 0) throw fail(`ossn credentials add ${partner.id}`, add);
    }
  }

  /** Two projectors, two query services and the proxy in front of them. */
  async start(): Promise<void> {
    this.startProjector();
    this.startProjector();
    for (let i = 0; i < 2; i++) this.services.push(await this.startService(await freePort(), await freePort()));
    await Promise.all(this.services.map((service) => this.untilReady(service)));
    this.proxy = await startRoundRobinProxy(this.services.map(({ port }) => ({ host: '127.0.0.1', port })));
  }

  startProjector(): OssnProcess {
    const projector = startOssn(['projector'], {
      ...this.env,
      OSSN_CONSUMER_GROUP: this.options.group,
      OSSN_CONSUMER_SESSION_TIMEOUT_MS: String(this.options.consumerSessionTimeoutMs),
      OSSN_METRICS_PORT: '0',
    });
    this.projectors.push(projector);
    return projector;
  }

  /** SIGKILLs projector `index` (its place in `projectors` is kept) and resolves once it has exited. */
  async killProjector(index: number): Promise<void> {
    const projector = this.projectors[index];
    if (!projector) throw new Error(`no projector ${index}`);
    projector.child.kill('SIGKILL');
    await projector.exit;
  }

  /** SIGKILLs query service `index` and resolves once it has exited. */
  async killService(index: number): Promise<void> {
    const service = this.services[index];
    if (!service) throw new Error(`no query service ${index}`);
    service.process.child.kill('SIGKILL');
    await service.process.exit;
  }

  /** Starts query service `index` again on its ports, and resolves once it is ready. */
  async restartService(index: number): Promise<void> {
    const old = this.services[index];
    if (!old) throw new Error(`no query service ${index}`);
    const service = await this.startService(old.port, old.opsPort);
    this.services[index] = service;
    await this.untilReady(service);
  }

  /** Starts again what a case killed and left down: projectors up to two, each query service that exited. */
  async repair(): Promise<void> {
    const running = (p: OssnProcess) => p.child.exitCode === null && p.child.signalCode === null;
    for (let n = this.projectors.filter(running).length; n < 2; n++) this.startProjector();
    for (const [index, service] of this.services.entries()) if (!running(service.process)) await this.restartService(index);
  }

  /** Resident memory (VmRSS) of each projector and query service running now. */
  memory(): { name: string; rssBytes: number }[] {
    const running = [...this.projectors.map((p, i) => ({ name: `projector-${i + 1}`, p })), ...this.services.map((s, i) => ({ name: `serve-${i + 1}`, p: s.process }))];
    return running.flatMap(({ name, p }) => {
      const status = p.child.exitCode === null && p.child.signalCode === null ? readFileSync(`/proc/${p.child.pid}/status`, 'utf8') : '';
      const kib = /^VmRSS:\s+(\d+) kB/m.exec(status)?.[1];
      return kib ? [{ name, rssBytes: Number(kib) * 1024 }] : [];
    });
  }

  /** Every process it started, stopped; the proxy closed. */
  async close(): Promise<void> {
    const running = [...this.projectors, ...this.services.map((s) => s.process)].filter((p) => p.child.exitCode === null && p.child.signalCode === null);
    for (const p of running) p.child.kill('SIGTERM');
    await Promise.all(running.map((p) => Promise.race([p.exit, sleep(15_000).then(() => p.child.kill('SIGKILL'))])));
    await this.proxy?.close();
  }

  private async startService(port: number, opsPort: number): Promise<QueryService> {
    const { redisUrl, rateLimit } = this.options;
    // At info, for its lines about the rate-limit store; each request's line is left unread.
    const process = startOssn(['serve'], {
      ...this.env,
      LOG_LEVEL: 'info',
      PORT: String(port),
      OPS_PORT: String(opsPort),
      REDIS_URL: redisUrl,
      RATE_LIMIT_PER_MINUTE: String(rateLimit.perWindow),
      RATE_LIMIT_WINDOW_MS: String(rateLimit.windowMs),
      STORE_TIMEOUT_MS: String(this.options.storeTimeoutMs),
      // Behind the round-robin proxy, as deployed (docs/operations.md): every connection comes from
      // the proxy, so the share per address is the proxy's to keep, and the client's address is
      // the one the proxy forwards.
      TRUSTED_PROXY_HOPS: '1',
    });
    const storeLines: StoreLogLine[] = [];
    let partial = '';
    process.child.stdout?.on('data', (chunk: Buffer) => {
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        if (!line.includes('rate-limit store')) continue;
        const { time, msg } = JSON.parse(line) as { time: number; msg: string };
        storeLines.push({ time, msg });
      }
    });
    return { port, opsPort, process, storeLines };
  }

  /** Resolves once the service's /readyz answers 200; rejects after 60 s or when it exits. */
  private async untilReady(service: QueryService): Promise<void> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (service.process.child.exitCode !== null) throw new Error(`ossn serve on port ${service.port} exited: ${service.process.output()}`);
      const status = await fetch(`http://127.0.0.1:${service.opsPort}/readyz`).then(
        (response) => response.status,
        () => 0,
      );
      if (status === 200) return;
      if (Date.now() > deadline) throw new Error(`ossn serve on port ${service.port} not ready within 60 s: ${service.process.output()}`);
      await sleep(250);
    }
  }
}
