import { deadLetterTopic } from '../../../contracts/transport.js';
import type { ProjectorConfig } from '../../config/config.js';
import { CredentialStore, credentialsCollection } from '../../adapters/mongodb/credential-store.js';
import { withKafkaAdmin, type KafkaAdmin } from '../../adapters/kafka/admin.js';
import type { KafkaClient } from '../../adapters/kafka/client.js';
import type { StoreDatabase } from '../../adapters/mongodb/connect.js';
import { pingStore } from '../../adapters/mongodb/server-commands.js';
import { pingRedis } from '../../adapters/redis/ping.js';
import { withDeadline } from '../../plumbing/lifecycle/deadline.js';
import { mongoHosts } from '../server-waits.js';
import { configForVersion } from '../../projector/versions.js';
import { membersOfOtherTopics, unassignedPartitions } from '../../projector/group-policy.js';
import { readActiveVersion, readBuild, type ActiveVersionRecord, type BuildRecord } from '../../adapters/mongodb/active-version.js';
import { MongoPushCursors, pushCursorsCollection } from '../../adapters/mongodb/push-cursors.js';
import { MongoPushDeliveries } from '../../adapters/mongodb/push-deliveries.js';
import { MongoPushSubscriptions, pushSubscriptionsCollection } from '../../adapters/mongodb/push-subscriptions.js';
import { pushLagMs } from '../../pusher/push-targets.js';

/** One check's answer: its value, or why there is none (a short text without addresses' secrets). */
export type Checked<T> = { ok: true; value: T } | { ok: false; problem: string };

export interface StatusReport {
  /** The event topic (OSSN_TOPIC). */
  topic: string;
  servers: { name: string; answers: Checked<string> }[];
  active: Checked<ActiveVersionRecord>;
  build: Checked<{ record: BuildRecord; done: number; total: number } | undefined>;
  lag: Checked<{
    group: string;
    /** Kafka's state of the group (Stable, PreparingRebalance, Empty…). */
    state: string;
    partitions: { partition: number; lag: number }[];
    members: string[];
    /** Partitions of the topic given to no member while the group has members: nobody projects them. */
    unassigned: number[];
    /** Members that read another topic (a projector of another topic in this group). */
    otherTopics: { member: string; topics: string[] }[];
  }>;
  deadLetters: Checked<{ lastHour: number; all: number }>;
  credentials: Checked<{ active: number; disabled: number }>;
  /** Each push subscription, oldest first (docs/operations.md, Push subscriptions). */
  push: Checked<PushSubscriptionStatus[]>;
}

export interface PushSubscriptionStatus {
  id: string;
  enabled: boolean;
  pending: number;
  parked: number;
  delivered: number;
  /** How far behind it is (services/pusher/push-targets.ts, pushLagMs). */
  lagMs: number;
  /** The pusher holding its lease, if one ever took it and has not let it go; live: held now, by the server's clock. */
  lease: { owner: string; until: Date; live: boolean } | null;
}

export interface StatusSources {
  config: ProjectorConfig;
  db: StoreDatabase;
  kafka: KafkaClient;
  redisUrl?: string;
  /** Query services or projectors to ask GET /readyz, by base URL. */
  probeUrls: string[];
  timeoutMs?: number;
  /** The store's connection under way: every read of the store waits for it, so all say the same when it fails. */
  storeConnected?: Promise<unknown>;
}

/** Error messages may name a URL with its password: only the message's first line, URLs cut to their host. */
function plain(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return (text.split('\n')[0] ?? '').replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s/@]*@/gi, (m) => m.replace(/\/\/[^@]*@/, '//')).slice(0, 160);
}

async function check<T>(work: () => Promise<T>, timeoutMs: number, what: string): Promise<Checked<T>> {
  try {
    return { ok: true, value: await withDeadline(work(), timeoutMs, what) };
  } catch (error) {
    return { ok: false, problem: plain(error) };
  }
}

/** A topic that is not there is said as such (Kafka's own words, "does not host this topic-partition", send an operator looking at the broker). */
async function topicMustExist(admin: KafkaAdmin, topic: string, what: string): Promise<void> {
  if (!(await admin.topicNames()).includes(topic)) throw new Error(`${what} does not exist; ossn setup creates it`);
}

/** host:port of a Redis URL, without its password. */
function redisHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '?';
  }
}

async function readyz(url: string): Promise<string> {
  const response = await fetch(`${url.replace(/\/+$/, '')}/readyz`, { signal: AbortSignal.timeout(2_000) });
  if (response.status !== 200) throw new Error(`not ready (HTTP ${response.status})`);
  return 'answers, ready';
}

/** Everything `ossn status` shows, each part checked on its own with a deadline, so one server away does not hide the rest. */
export async function gatherStatus(sources: StatusSources): Promise<StatusReport> {
  const { config, db, kafka } = sources;
  const timeoutMs = sources.timeoutMs ?? 5_000;
  // Asked at once, as every part: the whole report comes within one part's deadline.
  const connected = sources.storeConnected ?? Promise.resolve();
  connected.catch(() => undefined); // said by each read below
  const reading = check(async () => {
    await connected;
    return readActiveVersion(db, config.store.readModelVersion);
  }, timeoutMs, 'reading the active version');
  const dlq = deadLetterTopic(config.topic);

  const [active, kafkaAnswers, mongoAnswers, redisAnswers, probes, build, lag, deadLetters, credentials, push] = await Promise.all([
    reading,
    check(() => withKafkaAdmin(kafka, async (admin) => `answers (${await admin.brokerCount()} brokers)`), timeoutMs, 'Kafka'),
    check(async () => {
      await connected;
      await pingStore(db);
      return 'answers';
    }, timeoutMs, 'MongoDB'),
    sources.redisUrl ? check(() => pingRedis(sources.redisUrl as string), timeoutMs, 'Redis') : Promise.resolve(undefined),
    Promise.all(sources.probeUrls.map(async (url) => ({ name: url, answers: await check(() => readyz(url), timeoutMs, url) }))),
    check(
      async () => {
        await connected;
        const record = await readBuild(db);
        if (!record) return undefined;
        const lags = await withKafkaAdmin(kafka, (admin) => admin.partitionLags(record.consumerGroup, config.topic));
        const total = lags.reduce((sum, p) => sum + Number(p.end), 0);
        return { record, total, done: total - lags.reduce((sum, p) => sum + Number(p.lag), 0) };
      },
      timeoutMs,
      'reading the rebuild',
    ),
    check(
      async () => {
        const active = await reading;
        const activeGroup = active.ok ? configForVersion(config, active.value.version).consumerGroup : config.consumerGroup;
        return withKafkaAdmin(kafka, async (admin) => {
          await topicMustExist(admin, config.topic, `the topic ${config.topic} (OSSN_TOPIC)`);
          const partitions = (await admin.partitionLags(activeGroup, config.topic)).map((p) => ({ partition: p.partition, lag: Number(p.lag) }));
          const group = await admin.describeGroup(activeGroup);
          // Mid-rebalance no member holds anything yet: only a settled group's gaps are news.
          const unassigned = group.state === 'Stable' ? unassignedPartitions(group.members, config.topic, partitions.map((p) => p.partition)) : [];
          return {
            group: activeGroup,
            state: group.state,
            partitions,
            members: group.members.map((m) => m.name),
            unassigned,
            otherTopics: membersOfOtherTopics(group.members, config.topic).map((m) => ({ member: m.name, topics: m.topics })),
          };
        });
      },
      timeoutMs,
      'reading the consumer lag',
    ),
    check(
      () =>
        withKafkaAdmin(kafka, async (admin) => {
          await topicMustExist(admin, dlq, `the dead-letter topic ${dlq}`);
          const { all, lately } = await admin.messageCounts(dlq, 3_600_000);
          return { all: Number(all), lastHour: Number(lately) };
        }),
      timeoutMs,
      'reading the dead letters',
    ),
    check(
      async () => {
        await connected;
        const list = await new CredentialStore(credentialsCollection(db)).list();
        return { active: list.filter((c) => c.active).length, disabled: list.filter((c) => !c.active).length };
      },
      timeoutMs,
      'reading the credentials',
    ),
    check(
      async () => {
        await connected;
        return pushStatus(db);
      },
      timeoutMs,
      'reading the push subscriptions',
    ),
  ]);

  const servers = [
    { name: `Kafka ${config.kafkaBrokers.join(',')} (KAFKA_BROKERS)`, answers: kafkaAnswers },
    { name: `MongoDB ${mongoHosts(config.store.mongodbUri)} (MONGODB_URI, database ${config.store.database})`, answers: mongoAnswers },
    ...(redisAnswers && sources.redisUrl ? [{ name: `Redis ${redisHost(sources.redisUrl)} (REDIS_URL)`, answers: redisAnswers }] : []),
    ...probes,
  ];
  return { topic: config.topic, servers, active, build, lag, deadLetters, credentials, push };
}

/** Every push subscription with its deliveries' counts, its lag and its lease, as the pusher's gauges read them (services/pusher/start-pusher.ts). */
async function pushStatus(db: StoreDatabase, now = new Date()): Promise<PushSubscriptionStatus[]> {
  const [subscriptions, summaries, standings] = await Promise.all([
    new MongoPushSubscriptions(pushSubscriptionsCollection(db)).list(),
    MongoPushDeliveries.of(db).summaries(),
    new MongoPushCursors(pushCursorsCollection(db)).standings(),
  ]);
  return subscriptions.map((subscription) => {
    const summary = summaries.find((s) => s.subscriptionId === subscription.id);
    const standing = standings.find((c) => c._id === subscription.id);
    return {
      id: subscription.id,
      enabled: subscription.enabled,
      pending: summary?.pending ?? 0,
      parked: summary?.parked ?? 0,
      delivered: summary?.delivered ?? 0,
      lagMs: pushLagMs(now, summary?.oldestWaitingNews, standing?.cursor, subscription.cursorStart),
      lease: standing?.owner !== undefined && standing.leaseUntil !== undefined ? { owner: standing.owner, until: standing.leaseUntil, live: standing.leaseLive } : null,
    };
  });
}

/** Whether every server asked answered: `ossn status` exits 1 otherwise. */
export function allServersAnswer(report: StatusReport): boolean {
  return report.servers.every((server) => server.answers.ok);
}
