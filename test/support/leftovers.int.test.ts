// The clean-up after every integration file (leftovers.ts), against the real servers: what a file
// made under its unique names goes, what others made stays, and a consumer left running fails the
// file naming its group.
import { expect, it } from 'vitest';
import { testKafka, testMongo } from './clients.js';
import { dropAfterFile } from './leftover-names.js';
import { dropLeftovers } from './leftovers.js';
import { uniqueNames } from './servers.js';

/** On an admin client of its own: one that created a topic since deleted asks for it again and fails. */
async function listed(kafka: ReturnType<typeof testKafka>): Promise<{ topics: string[]; groups: string[] }> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    return { topics: await admin.listTopics(), groups: (await admin.listGroups()).groups.map((g) => g.groupId) };
  } finally {
    await admin.disconnect();
  }
}

it('drops the databases, topics and groups of the names handed out, names what it could not drop, and leaves the others', { timeout: 120_000 }, async () => {
  const mongo = await testMongo();
  const kafka = testKafka('leftovers-test');
  const admin = kafka.admin();
  await admin.connect();
  try {
    const ours = uniqueNames('leftovers');
    const kept = `t_leftovers_kept_${Date.now().toString(36)}`; // not from uniqueNames: not ours to drop
    await mongo.db(ours.database).collection('c').insertOne({ n: 1 });
    await mongo.db(kept).collection('c').insertOne({ n: 1 });
    await admin.createTopics({ topics: [{ topic: ours.topic, numPartitions: 1 }], waitForLeaders: true });
    // A group with committed offsets and no member left.
    // (Asked again while the new topic reaches the group coordinator's metadata.)
    await expect
      .poll(() => admin.setOffsets({ groupId: ours.group, topic: ours.topic, partitions: [{ partition: 0, offset: '0' }] }).then(() => true, () => false), { timeout: 20_000, interval: 250 })
      .toBe(true);

    await dropLeftovers();
    const databases = (await mongo.db('admin').admin().listDatabases({ nameOnly: true })).databases.map((d) => d.name);
    expect(databases).not.toContain(ours.database);
    expect(databases).toContain(kept);
    const after = await listed(kafka);
    expect(after.topics).not.toContain(ours.topic);
    expect(after.groups).not.toContain(ours.group);
    await mongo.db(kept).dropDatabase();

    // A consumer left running in its group: the file fails, naming the group. (A client of its
    // own: one that knew the deleted topic asks the broker for it again, and fails.)
    const running = uniqueNames('leftovers-running');
    const other = testKafka('leftovers-test-running');
    const otherAdmin = other.admin();
    await otherAdmin.connect();
    const left = other.consumer({ groupId: running.group });
    try {
      await otherAdmin.createTopics({ topics: [{ topic: running.topic, numPartitions: 1 }], waitForLeaders: true });
      await left.connect();
      await left.subscribe({ topic: running.topic });
      await left.run({ eachMessage: async () => {} });
      await expect.poll(async () => (await otherAdmin.describeGroups([running.group])).groups[0]?.members.length ?? 0, { timeout: 30_000 }).toBeGreaterThan(0);
      await expect(dropLeftovers({ membersGoneWithinMs: 2_000 })).rejects.toThrow(`consumer group ${running.group} (NON_EMPTY_GROUP)`);
    } finally {
      await left.disconnect();
      await otherAdmin.disconnect();
    }
    dropAfterFile(running.suffix); // each call takes the names handed out since the last one
    await dropLeftovers(); // now it goes
    expect((await listed(kafka)).groups).not.toContain(running.group);
  } finally {
    await admin.disconnect();
    await mongo.close();
  }
});
