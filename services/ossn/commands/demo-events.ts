import { parseArgs } from 'node:util';
import { generateDemoEvents } from '../demo-events/demo-events.js';
import { UsageError } from '../usage.js';

function positiveInteger(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new UsageError(`--${name} must be a positive integer`);
  return Number(value);
}

/** Writes the demo data set as NDJSON, so the ERP team can test its publisher against ours. */
export async function demoEventsCommand(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { clients: { type: 'string' }, orders: { type: 'string' }, seed: { type: 'string' } },
  });
  const events = generateDemoEvents({
    clients: positiveInteger(values.clients, 'clients', 3),
    orders: positiveInteger(values.orders, 'orders', 20),
    seed: positiveInteger(values.seed, 'seed', 1),
  });
  for (const event of events) {
    if (!process.stdout.write(`${JSON.stringify(event)}\n`)) await new Promise((resolve) => process.stdout.once('drain', resolve));
  }
}
