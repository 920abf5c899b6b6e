import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ProjectorConfig } from '../../services/plumbing/config/config.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Given `kill`: whether it was killed as asked, before it ended by itself. */
  killed?: boolean;
}

export interface CliOptions {
  /** Written to its stdin, which is closed right after. */
  input?: string;
  /** It is killed, and the run fails, after this long. */
  timeoutMs?: number;
  /** Killed with SIGKILL `afterMs` after its output (stdout and stderr) first satisfies `when`: the run then ends with `killed`. */
  kill?: { when: (output: string) => boolean; afterMs?: number };
}

/** Runs `ossn <args>` as an operator does (node bin/ossn.mjs), with `env` over this process's environment. */
export function runOssn(args: string[], env: Record<string, string>, { input = '', timeoutMs = 120_000, kill }: CliOptions = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/ossn.mjs', ...args], { cwd: root, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let killed = false;
    let killing: NodeJS.Timeout | undefined;
    const watch = () => {
      if (!kill || killing || !kill.when(stdout + stderr)) return;
      killing = setTimeout(() => {
        killed = child.exitCode === null && child.kill('SIGKILL');
      }, kill.afterMs ?? 0);
    };
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      watch();
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      watch();
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`ossn ${args.join(' ')} did not end within ${timeoutMs} ms; stdout: ${stdout}; stderr: ${stderr}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      clearTimeout(killing);
      resolve({ code, stdout, stderr, ...(kill ? { killed } : {}) });
    });
    child.stdin.on('error', () => {}); // the command may exit without reading stdin
    child.stdin.end(input);
  });
}

/** The variables that point `ossn` at a test's servers, database and topic, quietly. */
export function ossnEnv(config: ProjectorConfig): Record<string, string> {
  return {
    KAFKA_BROKERS: config.kafkaBrokers.join(','),
    MONGODB_URI: config.store.mongodbUri,
    MONGODB_DATABASE: config.store.database,
    OSSN_TOPIC: config.topic,
    LOG_LEVEL: 'warn',
  };
}
