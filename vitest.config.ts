import { defineConfig } from 'vitest/config';

// Four tiers (docs/development.md, Test tiers): unit tests need no servers, stay fast and neither
// sleep nor bound elapsed time (fake timers and events instead; a test whose behaviour is a server's
// own timers on real sockets is an integration test); integration tests (*.int.test.ts) get real
// Kafka, MongoDB-protocol and Redis servers from test/global-setup.ts; the serial tier is the
// integration files that start processes of their own or time the machine's pace (below), one file
// at a time in a vitest run of its own; cluster tests (*.cluster.test.ts) get the local cluster
// (3 mongod, 3 Kafka nodes, Redis) from test/cluster/global-setup.ts, and kill and restart its
// members. test/tiers.test.ts checks that every test file is in exactly one of them.

/**
 * The serial tier: integration files that start processes of their own (`ossn` through
 * test/support/ossn-cli.ts, a Kafka broker through test/support/dedicated-kafka.ts, a mongod), the
 * fault suite that cuts, freezes and kills them, and a file whose precondition is that the machine
 * keeps pace. They bound what the user is promised (a command gives up within its N s), so none of
 * them shares the machine with another test file, nor the heaviest files with the rest.
 */
export const serialFiles = [
  'test/fault-suite/**/*.int.test.ts',
  'services/ossn/**/*.int.test.ts',
  'services/replay/replay.int.test.ts',
  'services/projector/start-given-up.int.test.ts',
  'scripts/stack/start.int.test.ts',
  'scripts/stack/mongodb.int.test.ts',
  'services/adapters/mongodb/news-under-writes.int.test.ts',
];

const integrationServers = {
  globalSetup: ['test/global-setup.ts'],
  // Drops what each file made on the shared servers (test/support/leftovers.ts).
  setupFiles: ['test/support/leftovers-setup.ts'],
  testTimeout: 60_000,
  hookTimeout: 120_000,
};

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['{services,projections,contracts,scripts,test}/**/*.test.ts'],
          exclude: ['**/*.int.test.ts', '**/*.cluster.test.ts', '**/node_modules/**'],
          // No unit test bounds elapsed time: the timeout only catches a hang, with room for a 2-core
          // machine running the integration tier beside it.
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['{services,projections,contracts,scripts,test}/**/*.int.test.ts'],
          exclude: [...serialFiles, '**/node_modules/**'],
          ...integrationServers,
        },
      },
      {
        test: {
          name: 'serial',
          include: serialFiles,
          exclude: ['**/node_modules/**'],
          ...integrationServers,
          // One file at a time, and run after the unit and integration tiers (npm test).
          fileParallelism: false,
        },
      },
      {
        test: {
          name: 'cluster',
          include: ['test/cluster/**/*.cluster.test.ts'],
          globalSetup: ['test/cluster/global-setup.ts'],
          // Drops what each file made on the cluster under names from uniqueNames.
          setupFiles: ['test/support/leftovers-setup.ts'],
          // The files kill and restart the members they all share: one file at a time.
          fileParallelism: false,
          testTimeout: 600_000,
          hookTimeout: 300_000,
        },
      },
    ],
  },
});
