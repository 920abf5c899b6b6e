// `npm run receiver`: the trial receiver of OSN 2.1.0 ship notifications (receiver.ts), for a
// partner's team or an operator trying push (docs/operations.md, "A receiver to try push with").
// The password it expects comes from RECEIVER_PASSWORD, never the command line (ps would show it).
import { parseArgs } from 'node:util';
import { startReceiver } from './receiver.js';

const USAGE = `Usage: npm run receiver -- [--port N] [--host H] [--id ID]

Runs a receiver of OSN 2.1.0 sendAdvanceShipmentNotification built from the official WSDL, and
prints each notification it accepts (purchase order, shipments, transactionId).

  --port N   port to listen on (default 8090; 0: any free port)
  --host H   address to listen on (default 127.0.0.1)
  --id ID    the id ossn must send (default ossn); the password, if any, from RECEIVER_PASSWORD
  --help     this text
`;

function fail(message: string): never {
  process.stderr.write(`receiver: ${message}\n\n${USAGE}`);
  process.exit(2);
}

let values: { port?: string; host?: string; id?: string; help?: boolean };
try {
  ({ values } = parseArgs({ options: { port: { type: 'string' }, host: { type: 'string' }, id: { type: 'string' }, help: { type: 'boolean' } }, strict: true }));
} catch (error) {
  fail((error as Error).message);
}
if (values.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}
const port = Number(values.port ?? '8090');
if (!Number.isInteger(port) || port < 0 || port > 65_535) fail(`--port must be a port number, got "${values.port}"`);

const password = process.env['RECEIVER_PASSWORD'] || undefined;
const receiver = await startReceiver({ host: values.host, port, login: { id: values.id ?? 'ossn', password } }).catch((error: Error) => {
  process.stderr.write(`receiver: cannot listen on ${values.host ?? '127.0.0.1'}:${port}: ${error.message}\n`);
  process.exit(1);
});
let shown = 0;
process.stdout.write(`receiver: listening at ${receiver.url} (WSDL: ${receiver.url}?wsdl), id ${values.id ?? 'ossn'}, ${password ? 'a password' : 'no password'}\n`);
process.stdout.write(`receiver: add it with: echo "$RECEIVER_PASSWORD" | ossn push add <credential> --url ${receiver.url} --id ${values.id ?? 'ossn'}\n`);
const poll = setInterval(() => {
  for (const accepted of receiver.accepted.slice(shown)) {
    const shipments = (accepted.notification['ShipmentArray'] as { Shipment?: unknown } | undefined)?.Shipment;
    const count = Array.isArray(shipments) ? shipments.length : shipments ? 1 : 0;
    process.stdout.write(`${accepted.receivedAt.toISOString()} accepted ${String(accepted.notification['purchaseOrderNumber'])}: ${count} shipment(s), transactionId ${accepted.transactionId}\n`);
  }
  shown = receiver.accepted.length;
}, 250);

const stop = () => {
  clearInterval(poll);
  void receiver.close().then(() => process.exit(0));
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
