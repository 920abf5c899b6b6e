// npm start: `ossn start` on the servers given in the environment or, when none are, on the local
// stack (local-servers.ts): its addresses are passed to `ossn start` in the environment, and the
// stack is stopped again once `ossn start` has ended if this run started it. The product knows
// nothing of the stack; this is the seam between them.
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { fileURLToPath } from 'node:url';
import { localServers } from './local-servers.js';

const servers = await localServers();
const entry = fileURLToPath(new URL('../../bin/ossn.mjs', import.meta.url));
const ossn = spawn(process.execPath, [entry, 'start', ...process.argv.slice(2)], { env: servers.env, stdio: 'inherit' });
let ended = false;
// Ctrl-C reaches `ossn start` itself (the terminal signals the whole process group, which it
// shares), so SIGINT is not passed on: a second one would end its stop at once. SIGTERM, which a
// process manager sends to this process alone, is. Once `ossn start` has ended, either signal
// ends this process at once.
process.on('SIGINT', () => ended && process.exit(128 + constants.signals.SIGINT));
process.on('SIGTERM', () => (ended ? process.exit(128 + constants.signals.SIGTERM) : ossn.kill('SIGTERM')));
const code = await new Promise<number>((resolve) =>
  ossn.on('exit', (exitCode, signal) => resolve(exitCode ?? 128 + (signal ? constants.signals[signal] : 0))),
);
ended = true;
await servers.release();
process.exit(code);
