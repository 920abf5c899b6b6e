import { setTimeout as sleep } from 'node:timers/promises';
import type { Admin } from 'kafkajs';
import { testKafka, testMongo } from './clients.js';
import { takeSuffixes } from './leftover-names.js';

// What a test file makes on the shared servers is dropped after it (leftovers-setup.ts runs
// dropLeftovers after every integration test file): each MongoDB database, Kafka topic and
// consumer group whose name holds one of the suffixes uniqueNames handed out in the file. Names
// made from a UniqueNames (a dead-letter topic, a `-v2` group, a reader's group named after the
// topic) hold it too, so they go as well; names of other files and other runs never do.

/** A group whose member was killed stays non-empty until its session times out (30 s by default). */
const groupMembersGoneWithinMs = 60_000;
/** A deleted topic leaves the broker's metadata within moments; the wait only bounds a stuck one. */
const topicsGoneWithinMs = 30_000;

/**
 * Drops every database, topic and consumer group of the suffixes registered (dropAfterFile), then
 * checks that none is left; throws naming what could not be dropped (a group that still has
 * members after a minute: a consumer left running).
 */
export async function dropLeftovers({ membersGoneWithinMs = groupMembersGoneWithinMs } = {}): Promise<void> {
  const suffixes = takeSuffixes();
  if (suffixes.length === 0) return;
  const ours = (name: string) => suffixes.some((suffix) => name.includes(suffix));
  const left: string[] = [];

  const mongo = await testMongo();
  try {
    const databases = async () => (await mongo.db('admin').admin().listDatabases({ nameOnly: true })).databases.map((d) => d.name).filter(ours);
    for (const name of await databases()) await mongo.db(name).dropDatabase();
    left.push(...(await databases()).map((name) => `database ${name}`));
  } finally {
    await mongo.close();
  }

  const admin = testKafka('test-leftovers').admin();
  await admin.connect();
  try {
    left.push(...(await deleteGroups(admin, (await admin.listGroups()).groups.map((g) => g.groupId).filter(ours), membersGoneWithinMs)));
    left.push(...(await deleteTopics(admin, (await admin.listTopics()).filter(ours))));
  } finally {
    await admin.disconnect();
  }
  if (left.length > 0) throw new Error(`the test file left these behind, and they could not be dropped: ${left.join('; ')}`);
}

/**
 * Deletes the topics and waits until the broker's metadata no longer lists them: the controller
 * accepts a deletion before every broker's metadata has caught up, so a list taken at once may
 * still show them. Returns those still listed after the wait.
 */
async function deleteTopics(admin: Admin, topics: string[]): Promise<string[]> {
  if (topics.length === 0) return [];
  await admin.deleteTopics({ topics, timeout: 30_000 });
  const deadline = Date.now() + topicsGoneWithinMs;
  for (;;) {
    const listed = new Set(await admin.listTopics());
    const still = topics.filter((topic) => listed.has(topic));
    if (still.length === 0 || Date.now() >= deadline) return still.map((topic) => `topic ${topic}`);
    await sleep(500);
  }
}

/** Deletes the groups, waiting for those with members still; returns what it could not delete and why. */
async function deleteGroups(admin: Admin, groupIds: string[], membersGoneWithinMs: number): Promise<string[]> {
  const deadline = Date.now() + membersGoneWithinMs;
  let pending = groupIds;
  for (;;) {
    if (pending.length === 0) return [];
    const failed = await admin.deleteGroups(pending).then(
      () => [],
      (error: unknown) => (error as { groups?: { groupId: string; error?: { type?: string; message?: string } }[] }).groups ?? [{ groupId: pending.join(', '), error: { message: String(error) } }],
    );
    const failures = failed.filter((f) => f.error?.type !== 'GROUP_ID_NOT_FOUND');
    const stillMembers = failures.filter((f) => f.error?.type === 'NON_EMPTY_GROUP');
    if (stillMembers.length < failures.length || stillMembers.length === 0 || Date.now() >= deadline) {
      return failures.map((f) => `consumer group ${f.groupId} (${f.error?.type ?? f.error?.message ?? 'not deleted'})`);
    }
    pending = stillMembers.map((f) => f.groupId);
    await sleep(1_000);
  }
}
