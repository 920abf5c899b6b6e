import type { StackPaths } from './config.js';
import type { LaunchSpec } from './process.js';

/** 'kafka', 'mongodb', 'redis' in the single stack; 'mongodb-1', 'kafka-2', ... in the cluster. */
export type ServerName = string;

export interface ServerContext {
  config: StackPaths;
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
  /** Its part in a group of servers, as `status` shows it (PRIMARY or SECONDARY for a mongod). */
  role?(): Promise<string | undefined>;
  /**
   * Brings a server that answers to the state its clients need (MongoDB: an initiated replica set
   * with a primary). Idempotent: run after every start and on every server found running.
   */
  settle?(ctx: ServerContext): Promise<void>;
}
