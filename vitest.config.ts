import { defineConfig } from 'vitest/config';

// Two tiers: unit tests need no servers and stay fast; integration tests (*.int.test.ts)
// get real Kafka, MongoDB-protocol and Redis servers from test/global-setup.ts.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['{services,projections,contracts,scripts,test}/**/*.test.ts'],
          exclude: ['**/*.int.test.ts', '**/node_modules/**'],
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
    ],
  },
});
