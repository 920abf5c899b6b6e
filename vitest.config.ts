import { defineConfig } from 'vitest/config';

// Three tiers: unit tests need no servers, stay fast and neither sleep nor bound elapsed time (fake
// timers and events instead; a test whose behaviour is a server's own timers on real sockets is an
// integration test); integration tests (*.int.test.ts)
// get real Kafka, MongoDB-protocol and Redis servers from test/global-setup.ts; cluster tests
// (*.cluster.test.ts) get the local cluster (3 mongod, 3 Kafka nodes, Redis) from
// test/cluster/global-setup.ts, and kill and restart its members.
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
          globalSetup: ['test/global-setup.ts'],
          // Drops what each file made on the shared servers (test/support/leftovers.ts).
          setupFiles: ['test/support/leftovers-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
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
