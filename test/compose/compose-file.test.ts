// docker-compose.yml as Docker Compose reads it, without a Docker engine: compose-go (the loader
// Docker Compose itself uses) loads it for each shape (scripts/compose-check), and what it
// resolves to is checked for what a user would notice: the services each shape starts, how the
// cluster's members find each other, that every variable given to an ossn container is one its
// command validates, with a value it accepts, that a shape's ossn containers agree on what they
// share, and that every variable of a Kafka container sets a known broker property.
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readProjectorConfig, readQueryConfig } from '../../services/config/config.js';
import { kafkaServerProperties, type KafkaNode } from '../../scripts/stack/kafka.js';
import { variablesReadBy } from '../support/variables-read-by.js';
import { goRun } from '../support/go-run.js';
import { DEFAULT_BODY_LIMIT } from '../../services/query/protocol/soap/soap-http.js';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const composeFile = join(repo, 'docker-compose.yml');

interface ResolvedService {
  image?: string;
  build: boolean;
  command: string[];
  restart: string;
  environment: Record<string, string | null>;
  dependsOn: Record<string, { condition: string; required: boolean }>;
  ports: string[];
  volumes: string[];
  aliases: string[];
}
interface Shape {
  shape: string;
  activeProfiles: string[];
  services: Record<string, ResolvedService>;
  warnings: string[];
}
interface CheckOutput {
  composeGo: string;
  shapes: Shape[];
}

// The configuration each ossn command reads (services/ossn/commands/<command>.ts).
const configReaderOf: Record<string, (env: Record<string, string | undefined>) => unknown> = {
  setup: readProjectorConfig,
  projector: readProjectorConfig,
  serve: readQueryConfig,
};

/** compose-check on `file`, for each shape. */
const composeCheck = (file: string, shapes: string[]) => goRun('compose-check', [file, ...shapes]);

const ossnServices = (shape: Shape) => Object.entries(shape.services).filter(([, s]) => s.build);
const withCommand = (shape: Shape, command: string) => ossnServices(shape).filter(([, s]) => s.command[0] === command);
const envOf = (s: ResolvedService): Record<string, string> =>
  Object.fromEntries(Object.entries(s.environment).map(([name, value]) => [name, value ?? '']));
/** The `host:port` targets of a Prometheus job in one of our ops/prometheus files (one static target list a job). */
function scrapeTargets(configFile: string, job: string): string[] {
  const text = readFileSync(join(repo, configFile), 'utf8');
  const match = new RegExp(`job_name: ${job}\\n[\\s\\S]*?targets: \\[([^\\]]*)\\]`).exec(text);
  return (match?.[1] ?? '').split(',').map((t) => t.trim().replace(/^"|"$/g, '')).filter(Boolean).sort();
}
/** The Prometheus service loads ossn's alert rules: its configuration names the file it mounts there. */
function expectAlertRules(prometheus: ResolvedService): void {
  expect(mounted(prometheus, '/etc/prometheus/alerts.yml')).toBe('ops/prometheus/alerts.yml');
  const config = readFileSync(join(repo, mounted(prometheus, '/etc/prometheus/prometheus.yml')), 'utf8');
  expect(/^rule_files:\n((?: +- .*\n)+)/m.exec(config)?.[1]?.trim().split('\n').map((line) => line.trim())).toEqual(['- /etc/prometheus/alerts.yml']);
}
/** The file a service mounts at `target`, relative to the repository. */
function mounted(s: ResolvedService, target: string): string {
  const volume = s.volumes.find((v) => v.endsWith(`:${target}`));
  if (!volume) throw new Error(`nothing mounted at ${target}`);
  return volume.slice(0, -`:${target}`.length).replace(/^\.\//, '');
}

const sampleBroker: KafkaNode = {
  name: 'kafka-1',
  nodeId: 1,
  port: 9092,
  controllerPort: 9093,
  portVariables: ['KAFKA_PORT', 'KAFKA_CONTROLLER_PORT'],
  voters: [{ nodeId: 1, controllerPort: 9093 }],
  home: '/kafka',
  clusterIdFile: '/kafka/cluster-id',
  replicationFactor: 3,
  heap: { initial: '256m', max: '768m' },
};
/**
 * The broker properties a variable may set: every key the local stack writes into its brokers'
 * server.properties (scripts/stack/kafka.ts), read off the file it writes for a sample node.
 */
const stackBrokerProperties = new Set(
  kafkaServerProperties(sampleBroker, '/data')
    .split('\n')
    .filter((line) => /^[a-z]/.test(line))
    .map((line) => line.slice(0, line.indexOf('='))),
);
/** Variables of the apache/kafka image that are no broker property, and that the file uses. */
const kafkaImageVariables = new Set([
  // The id the image's start script formats the storage with (kafka-storage.sh format --cluster-id).
  'CLUSTER_ID',
]);
/** KAFKA_CONTROLLER_LISTENER_NAMES -> controller.listener.names, as the apache/kafka image turns a variable into a property. */
const brokerProperty = (variable: string) => variable.slice('KAFKA_'.length).toLowerCase().replaceAll('_', '.');
/** Settings every ossn process of a shape must share, or they read and write different things. */
const sharedByAllOssn = ['MONGODB_DATABASE', 'READ_MODEL_VERSION', 'OSSN_TOPIC'];
/** Settings the projectors of a shape must share: one consumer group. */
const sharedByProjectors = ['OSSN_CONSUMER_GROUP'];

/** Each value given to `variable` among `services` (unset included), with the services given it. */
function valuesOf(services: [string, ResolvedService][], variable: string): Record<string, string[]> {
  const values: Record<string, string[]> = {};
  for (const [name, s] of services) (values[s.environment[variable] ?? '(unset)'] ??= []).push(name);
  return values;
}

let output: CheckOutput;
let single: Shape;
let cluster: Shape;
const checks = { total: 0, passed: 0 };

beforeAll(async () => {
  const { stdout } = await composeCheck(composeFile, ['default', 'cluster']);
  output = JSON.parse(stdout) as CheckOutput;
  [single, cluster] = output.shapes as [Shape, Shape];
}, 600_000);

afterAll(() => {
  if (checks.passed < checks.total || !output) return;
  const validated = [single, cluster].every((shape) => ossnServices(shape).length > 0);
  console.log(
    `compose check: docker-compose.yml (compose-go ${output.composeGo}): default ${Object.keys(single.services).length} services, cluster ${Object.keys(cluster.services).length} services, ${validated ? 'variables all validated by ossn' : 'NO ossn service found'}`,
  );
});

/** An `it` counted for the summary line, which is printed only when all of them passed. */
function check(name: string, body: () => void | Promise<void>, timeoutMs?: number) {
  checks.total++;
  it(
    name,
    async () => {
      await body();
      checks.passed++;
    },
    timeoutMs,
  );
}

describe('docker-compose.yml (compose-go)', () => {
  check('`docker compose up` starts the single-node system: one of each, the query service on :8080', () => {
    expect(single.activeProfiles).toEqual(['single-node']);
    expect(Object.keys(single.services).sort()).toEqual(['grafana', 'kafka', 'mongodb', 'projector', 'prometheus', 'query', 'redis', 'setup']);
    expect(single.services.query?.ports).toEqual(['8080:8080/tcp']);
    expect(single.services.setup?.command).toEqual(['setup']);
    expect(single.services.setup?.restart).toBe('no');
    expect(scrapeTargets(mounted(single.services.prometheus!, '/etc/prometheus/prometheus.yml'), 'ossn-query')).toEqual(['query:9465']);
    expect(scrapeTargets(mounted(single.services.prometheus!, '/etc/prometheus/prometheus.yml'), 'ossn-projector')).toEqual(['projector:9464']);
    expectAlertRules(single.services.prometheus!);
  });

  check('`docker compose --profile cluster up` starts the cluster alone, no single-node service beside it', () => {
    expect(cluster.activeProfiles).toEqual(['cluster']);
    const names = Object.keys(cluster.services);
    for (const singleOnly of ['kafka', 'mongodb', 'setup', 'projector', 'query', 'prometheus', 'grafana']) expect(names).not.toContain(singleOnly);
    expect(names).toContain('redis');
    expect(names.some((n) => cluster.services[n]!.image?.startsWith('grafana/grafana'))).toBe(true);
    const prometheus = Object.values(cluster.services).filter((s) => s.image?.startsWith('prom/prometheus'));
    expect(prometheus).toHaveLength(1);
    // Grafana's provisioned data source is http://prometheus:9090.
    expect(prometheus[0]!.aliases).toContain('prometheus');
  });

  check('the cluster: 3 mongod members of one replica set, initiated by a one-shot that names them all, and ossn given all three', () => {
    const members = Object.entries(cluster.services).filter(([, s]) => s.command[0] === 'mongod');
    expect(members.map(([n]) => n).sort()).toEqual(['mongodb-1', 'mongodb-2', 'mongodb-3']);
    const replSets = new Set(members.map(([, s]) => s.command[s.command.indexOf('--replSet') + 1]));
    expect([...replSets]).toEqual(['rs-cluster']);
    const init = Object.entries(cluster.services).filter(([, s]) => s.command[0] === 'mongosh');
    expect(init).toHaveLength(1);
    const [initName, initService] = init[0]!;
    expect(initService.restart).toBe('no');
    expect(Object.keys(initService.dependsOn).sort()).toEqual(members.map(([n]) => n).sort());
    const script = readFileSync(join(repo, mounted(initService, initService.command.at(-1)!)), 'utf8');
    for (const [name] of members) expect(script).toContain(`'${name}:27017'`);
    expect(script).toContain("_id: 'rs-cluster'");
    for (const [name, s] of withCommand(cluster, 'setup')) {
      expect(s.dependsOn[initName], name).toEqual({ condition: 'service_completed_successfully', required: true });
    }
    for (const [name, s] of ossnServices(cluster)) {
      // mongodb://host[:port],host[:port].../?options (a seed list: more than a URL's one host)
      const [, hosts = '', options = ''] = /^mongodb:\/\/([^/?]+)\/?\??(.*)$/.exec(s.environment.MONGODB_URI ?? '') ?? [];
      expect(hosts.split(',').map((h) => h.replace(/:27017$/, '')).sort(), name).toEqual(members.map(([n]) => n).sort());
      expect(new URLSearchParams(options).get('replicaSet'), name).toBe('rs-cluster');
    }
  });

  check('the cluster: 3 brokers, each one of the 3 controllers, one cluster id, topics replicated 3 times and written to 2', () => {
    const brokers = Object.entries(cluster.services).filter(([, s]) => s.image?.startsWith('apache/kafka:'));
    expect(brokers).toHaveLength(3);
    const voters = brokers.map(([name, s]) => `${s.environment.KAFKA_NODE_ID}@${name}:9093`).sort();
    expect(new Set(brokers.map(([, s]) => s.environment.KAFKA_NODE_ID)).size).toBe(3);
    for (const [name, s] of brokers) {
      const env = s.environment;
      expect(env.KAFKA_PROCESS_ROLES, name).toBe('broker,controller');
      expect(env.KAFKA_CONTROLLER_QUORUM_VOTERS?.split(',').sort(), name).toEqual(voters);
      expect(env.CLUSTER_ID, name).toBe(brokers[0]![1].environment.CLUSTER_ID);
      expect(env.KAFKA_ADVERTISED_LISTENERS, name).toBe(`PLAINTEXT://${name}:9092`);
      expect(
        [env.KAFKA_DEFAULT_REPLICATION_FACTOR, env.KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR, env.KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR, env.KAFKA_SHARE_COORDINATOR_STATE_TOPIC_REPLICATION_FACTOR],
        name,
      ).toEqual(['3', '3', '3', '3']);
      expect([env.KAFKA_MIN_INSYNC_REPLICAS, env.KAFKA_TRANSACTION_STATE_LOG_MIN_ISR, env.KAFKA_SHARE_COORDINATOR_STATE_TOPIC_MIN_ISR], name).toEqual(['2', '2', '2']);
      expect(s.volumes.some((v) => v.endsWith(`:${env.KAFKA_LOG_DIRS}`)), `${name} keeps its log on a volume`).toBe(true);
    }
    for (const [name, s] of [...withCommand(cluster, 'setup'), ...withCommand(cluster, 'projector')]) {
      expect(s.environment.KAFKA_BROKERS?.split(',').sort(), name).toEqual(brokers.map(([n]) => `${n}:9092`).sort());
    }
    const [[, setup]] = withCommand(cluster, 'setup') as [[string, ResolvedService]];
    for (const [name] of brokers) expect(setup.dependsOn[name]?.condition).toBe('service_healthy');
  });

  check('the cluster: 2 projectors in one consumer group, 2 query services behind the proxy, all 4 scraped by Prometheus', () => {
    const projectors = withCommand(cluster, 'projector');
    expect(projectors).toHaveLength(2);
    const groups = new Set(projectors.map(([, s]) => readProjectorConfig(envOf(s)).consumerGroup));
    expect(groups.size).toBe(1);

    const queries = withCommand(cluster, 'serve');
    expect(queries).toHaveLength(2);
    for (const [name, s] of queries) {
      expect(s.ports, `${name} is reached through the proxy only`).toEqual([]);
      expect(readQueryConfig(envOf(s)).trustedProxyHops, name).toBe(1);
    }
    const proxies = Object.values(cluster.services).filter((s) => s.image?.startsWith('nginx:'));
    expect(proxies).toHaveLength(1);
    const proxy = proxies[0]!;
    expect(proxy.ports).toEqual(['8080:8080/tcp']);
    const conf = readFileSync(join(repo, mounted(proxy, '/etc/nginx/nginx.conf')), 'utf8');
    const upstreams = [...conf.matchAll(/^\s*server\s+([\w.-]+:\d+)\b/gm)].map((m) => m[1]).sort();
    expect(upstreams).toEqual(queries.map(([name, s]) => `${name}:${readQueryConfig(envOf(s)).port}`).sort());
    expect(conf).toMatch(/proxy_next_upstream\s+error\b/);
    // The services keep no share per address behind it (every connection is the proxy's): it keeps the same one.
    const zone = /limit_conn_zone\s+\$binary_remote_addr\s+zone=([\w-]+):/.exec(conf)?.[1];
    expect(zone).toBeDefined();
    const share = Number(new RegExp(`limit_conn\\s+${zone}\\s+(\\d+);`).exec(conf)?.[1]);
    expect(share).toBe(readQueryConfig({ MONGODB_URI: 'mongodb://x/' }).maxConnectionsPerAddress);
    // Nor does it take in (buffer, to disk past 16 KiB) a body the services refuse anyway: 8 KiB for SOAP.
    const bodyLimit = /client_max_body_size\s+(\d+)([km]?);/.exec(conf);
    expect(bodyLimit).not.toBeNull();
    expect(Number(bodyLimit![1]) * ({ '': 1, k: 1024, m: 1024 * 1024 } as Record<string, number>)[bodyLimit![2]!]!).toBeLessThanOrEqual(2 * DEFAULT_BODY_LIMIT);

    const prometheus = Object.values(cluster.services).find((s) => s.image?.startsWith('prom/prometheus'))!;
    const config = mounted(prometheus, '/etc/prometheus/prometheus.yml');
    expect(scrapeTargets(config, 'ossn-query')).toEqual(queries.map(([name, s]) => `${name}:${readQueryConfig(envOf(s)).opsPort}`).sort());
    expect(scrapeTargets(config, 'ossn-projector')).toEqual(projectors.map(([name, s]) => `${name}:${readProjectorConfig(envOf(s)).metricsPort}`).sort());
    expectAlertRules(prometheus);
  });

  check('every variable given to an ossn container is one its command validates, with a value it accepts', () => {
    for (const shape of [single, cluster]) {
      expect(ossnServices(shape).length).toBeGreaterThan(0);
      for (const [name, s] of ossnServices(shape)) {
        const read = configReaderOf[s.command[0] ?? ''];
        expect(read, `${shape.shape}/${name} runs \`ossn ${s.command.join(' ')}\``).toBeDefined();
        const validated = variablesReadBy(read!);
        expect(Object.keys(s.environment).filter((v) => !validated.includes(v)), `${shape.shape}/${name}: variables ossn does not read`).toEqual([]);
        expect(() => read!(envOf(s)), `${shape.shape}/${name}`).not.toThrow();
      }
    }
  });

  check('in each shape, every ossn process has the same database, read-model version and topic, and the projectors one consumer group', () => {
    const readByOssn = [...variablesReadBy(readProjectorConfig), ...variablesReadBy(readQueryConfig)];
    for (const variable of [...sharedByAllOssn, ...sharedByProjectors]) expect(readByOssn, `ossn reads ${variable}`).toContain(variable);
    for (const shape of [single, cluster]) {
      for (const variable of sharedByAllOssn) {
        expect(Object.keys(valuesOf(ossnServices(shape), variable)), `${shape.shape}: ${variable} differs: ${JSON.stringify(valuesOf(ossnServices(shape), variable))}`).toHaveLength(1);
      }
      const projectors = withCommand(shape, 'projector');
      expect(projectors.length).toBeGreaterThan(0);
      for (const variable of sharedByProjectors) {
        expect(Object.keys(valuesOf(projectors, variable)), `${shape.shape}: ${variable} differs: ${JSON.stringify(valuesOf(projectors, variable))}`).toHaveLength(1);
      }
    }
  });

  check('every variable given to a Kafka container sets a known broker property (or is one of the image\'s own)', () => {
    expect(stackBrokerProperties).toContain('controller.listener.names');
    for (const shape of [single, cluster]) {
      const brokers = Object.entries(shape.services).filter(([, s]) => s.image?.startsWith('apache/kafka:'));
      expect(brokers.length).toBeGreaterThan(0);
      for (const [name, s] of brokers) {
        const unknown = Object.keys(s.environment).filter((variable) =>
          variable.startsWith('KAFKA_') ? !stackBrokerProperties.has(brokerProperty(variable)) : !kafkaImageVariables.has(variable),
        );
        expect(unknown, `${shape.shape}/${name}: variables that set no known broker property`).toEqual([]);
      }
    }
  });

  check('no interpolation or other loader warnings', () => {
    expect(single.warnings).toEqual([]);
    expect(cluster.warnings).toEqual([]);
  });

  check('Prometheus and Grafana are published on loopback only, and Grafana lets no anonymous viewer in', () => {
    for (const shape of [single, cluster]) {
      const monitoring = Object.entries(shape.services).filter(([, s]) => /^(prom\/prometheus|grafana\/grafana):/.test(s.image ?? ''));
      expect(monitoring.length, shape.shape).toBe(2);
      for (const [name, s] of monitoring) {
        expect(s.ports.length, name).toBeGreaterThan(0);
        for (const port of s.ports) expect(port, name).toMatch(/^127\.0\.0\.1:/);
        if (s.image?.startsWith('grafana/')) expect(s.environment.GF_AUTH_ANONYMOUS_ENABLED ?? 'false', name).toBe('false');
      }
    }
  });

  check(
    'an operator opts in to publishing Prometheus and Grafana elsewhere with OSSN_MONITORING_HOST',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'compose-check-'));
      try {
        copyFileSync(composeFile, join(dir, 'docker-compose.yml'));
        writeFileSync(join(dir, '.env'), `${readFileSync(join(repo, '.env'), 'utf8')}OSSN_MONITORING_HOST=0.0.0.0\n`);
        const { stdout } = await composeCheck(join(dir, 'docker-compose.yml'), ['default']);
        const [opened] = (JSON.parse(stdout) as CheckOutput).shapes as [Shape];
        expect(opened.services.prometheus?.ports).toEqual(['0.0.0.0:9090:9090/tcp']);
        expect(opened.services.grafana?.ports).toEqual(['0.0.0.0:3000:3000/tcp']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    120_000,
  );

  check(
    'a file with a broken depends_on is refused by the loader',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'compose-check-'));
      try {
        const broken = readFileSync(composeFile, 'utf8').replace('cluster-setup: { condition: service_completed_successfully }', 'cluster-setpu: { condition: service_completed_successfully }');
        expect(broken).not.toBe(readFileSync(composeFile, 'utf8'));
        writeFileSync(join(dir, 'docker-compose.yml'), broken);
        copyFileSync(join(repo, '.env'), join(dir, '.env'));
        const refused = await composeCheck(join(dir, 'docker-compose.yml'), ['cluster']).then(
          () => undefined,
          (error: unknown) => error as { stderr: string },
        );
        expect(refused?.stderr).toContain('depends on undefined service "cluster-setpu"');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    120_000,
  );
});
