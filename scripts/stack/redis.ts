import { existsSync, mkdirSync } from 'node:fs';
import { createConnection } from 'node:net';
import { resolve } from 'node:path';
import type { StackConfig } from './config.js';
import { StackError } from './stack-error.js';
import type { Server, ServerContext } from './server.js';
import { aptInstall, which } from './tools.js';

/** True when a `PING` on a raw connection gets `+PONG`. */
function redisAnswers(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port });
    let reply = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString('latin1');
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG'));
    });
  });
}

function findRedisServer(): string | undefined {
  // Debian installs it in /usr/bin; a PATH without it should not trigger a reinstall.
  return which('redis-server') ?? (existsSync('/usr/bin/redis-server') ? '/usr/bin/redis-server' : undefined);
}

/** Installs Debian's redis-server when it is missing. */
async function install(ctx: ServerContext): Promise<string> {
  const found = findRedisServer();
  if (found) return found;
  await aptInstall({ who: 'redis', logFile: resolve(ctx.config.logsDir, 'apt.log'), log: ctx.log }, ['redis-server']);
  const installed = findRedisServer();
  if (!installed) throw new StackError('redis: apt-get installed redis-server, yet it is not on the PATH nor in /usr/bin');
  return installed;
}

/** One redis-server of a stack. */
export interface RedisMember {
  name: string;
  port: number;
  /** The variable that moves the port, named when it is taken. */
  portVariable: string;
  dir: string;
}

/** The single stack's Redis. */
export function stackRedisMember(config: StackConfig): RedisMember {
  return { name: 'redis', port: config.ports.redis, portVariable: 'OSSN_STACK_REDIS_PORT', dir: resolve(config.stackDir, 'redis') };
}

export function redisServer(member: RedisMember): Server {
  const { port, dir } = member;
  let command = 'redis-server';
  return {
    name: member.name,
    ports: [{ port, variable: member.portVariable }],
    address: `redis://127.0.0.1:${port}`,
    startTimeoutMs: 15_000,
    stopGraceMs: 10_000,
    async prepare(ctx) {
      command = await install(ctx);
    },
    async launch() {
      mkdirSync(dir, { recursive: true });
      // No configuration file: the system's /etc/redis/redis.conf (daemonize, its own port, dir and
      // persistence) must not apply. A cache for tests and local runs needs no persistence.
      return {
        command,
        args: ['--bind', '127.0.0.1', '--port', String(port), '--dir', dir, '--daemonize', 'no', '--save', '', '--appendonly', 'no', '--logfile', ''],
        cwd: dir,
      };
    },
    answers: () => redisAnswers('127.0.0.1', port),
  };
}
