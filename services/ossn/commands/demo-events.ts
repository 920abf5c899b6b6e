import { generateDemoEvents } from '../demo-events/demo-events.js';
import { UsageError } from '../usage.js';
import type { Command } from '../command.js';
import { parseCommandLine } from '../command-line.js';

function positiveInteger(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new UsageError(`ossn demo-events: --${name} must be a positive integer, got "${value}"`);
  return Number(value);
}

/** Writes the demo data set as NDJSON, so the ERP team can test its publisher against ours. */
export const demoEventsCommand: Command = {
  help: `usage: ossn demo-events [--clients N] [--orders M] [--seed S]

  Writes a realistic ERP event data set (NDJSON, one event a line) to stdout: M sales orders of each
  of N clients (3 and 20 by default), the same for the same seed (1 by default).`,
  run: demoEvents,
};

async function demoEvents(argv: string[]): Promise<void> {
  const { values } = parseCommandLine({ name: 'demo-events', options: { clients: { type: 'string' }, orders: { type: 'string' }, seed: { type: 'string' } } }, argv);
  const events = generateDemoEvents({
    clients: positiveInteger(values.clients, 'clients', 3),
    orders: positiveInteger(values.orders, 'orders', 20),
    seed: positiveInteger(values.seed, 'seed', 1),
  });
  for (const event of events) {
    if (!process.stdout.write(`${JSON.stringify(event)}\n`)) await new Promise((resolve) => process.stdout.once('drain', resolve));
  }
}
