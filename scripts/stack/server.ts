import type { StackConfig } from './config.js';
import type { LaunchSpec } from './process.js';

export type ServerName = 'kafka' | 'mongodb' | 'redis';

export interface ServerContext {
  config: StackConfig;
  /** One progress line for a person (no trailing newline). */
  log: (line: string) => void;
  signal: AbortSignal;
}

/** One server of the local stack: how to get it, start it and ask whether it answers. */
export interface Server {
  name: ServerName;
  /** The ports it listens on, each with the variable that moves it. */
  ports: { port: number; variable: string }[];
  /** Where clients reach it, as shown by `status`. */
  address: string;
  startTimeoutMs: number;
  /** How long SIGTERM may take before SIGKILL. */
  stopGraceMs: number;
  /** Makes the program available (download, build or install); fast when it already is. */
  prepare(ctx: ServerContext): Promise<void>;
  /** Writes its configuration and says how to start it. */
  launch(ctx: ServerContext): Promise<LaunchSpec>;
  /** A real request that succeeds only when the server answers clients. */
  answers(): Promise<boolean>;
  /**
   * Brings a server that answers to the state its clients need (MongoDB: an initiated replica set
   * with a primary). Idempotent: run after every start and on every server found running.
   */
  settle?(ctx: ServerContext): Promise<void>;
}
