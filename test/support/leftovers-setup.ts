// Setup file of every integration and cluster test file (vitest.config.ts): after the file's own afterAll hooks
// (hooks run in stack order, so this one, registered first, runs last: its projectors and clients
// are stopped by then), whatever it made on the shared servers under names from uniqueNames is dropped.
import { afterAll } from 'vitest';
import { dropLeftovers } from './leftovers.js';

afterAll(() => dropLeftovers(), 120_000);
