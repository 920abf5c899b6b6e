// npm start: `ossn start` on the servers given in the environment or, when none are, on the local
// stack (local-servers.ts): its addresses are passed to `ossn start` in the environment, and the
// servers this run started are stopped again once `ossn start` has ended. The product knows
// nothing of the stack; this is the seam between them.
import { spawn, type ChildProcess } from 'node:child_process';
import { constants } from 'node:os';
import { fileURLToPath } from 'node:url';
import { localServers } from './local-servers.js';
import { StackError } from './stack-error.js';

const entry = fileURLToPath(new URL('../../bin/ossn.mjs', import.meta.url));
// Set from the first moment: a signal while the stack comes up (minutes on a first run) stops
// what it had started; after that, Ctrl-C reaches `ossn start` itself (the terminal signals the
// whole process group, which it shares), so SIGINT is not passed on: a second one would end its
// stop at once. SIGTERM, which a process manager sends to this process alone, is. Once `ossn
// start` has ended, either signal ends this process at once.
const starting = new AbortController();
let ossn: ChildProcess | undefined = undefined;
let ended = false;
const onSignal = (signal: 'SIGINT' | 'SIGTERM') => {
  if (!ossn) return starting.abort();
  if (ended) process.exit(128 + constants.signals[signal]);
  if (signal === 'SIGTERM') ossn.kill('SIGTERM');
};
process.on('SIGINT', () => onSignal('SIGINT'));
process.on('SIGTERM', () => onSignal('SIGTERM'));

const servers = await localServers(process.env, starting.signal).catch((error: unknown) => {
  process.stderr.write(`${error instanceof StackError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
const child = spawn(process.execPath, [entry, 'start', ...process.argv.slice(2)], { env: servers.env, stdio: 'inherit' });
ossn = child;
const code = await new Promise<number>((resolve) => {
  child.on('error', (error) => {
    process.stderr.write(`could not run ossn start: ${error.message}\n`);
    resolve(1);
  });
  child.on('exit', (exitCode, signal) => resolve(exitCode ?? 128 + (signal ? constants.signals[signal] : 0)));
});
ended = true;
await servers.release();
process.exit(code);
