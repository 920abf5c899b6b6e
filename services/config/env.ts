// Configuration is read from the environment once, at start. Every bad value is reported,
// each with one clear line, before anything connects.
import { IANAZone } from 'luxon';
import { ErrorCodes, OssnError } from '../../contracts/errors/ossn-error.js';
import { isMongoConnectionString } from '../adapters/mongodb/connect.js';
import { durationMs } from './duration.js';

export class ConfigError extends OssnError {
  constructor(readonly problems: string[]) {
    super(ErrorCodes.CONFIG_INVALID, `Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

/** Collects problems while reading variables, so that all of them are reported at once. */
export class EnvReader {
  readonly problems: string[] = [];
  constructor(private readonly env: Env) {}

  private raw(name: string): string | undefined {
    const value = this.env[name]?.trim();
    return value === '' ? undefined : value;
  }

  string(name: string, fallback?: string): string {
    const value = this.raw(name) ?? fallback;
    if (value === undefined) {
      this.problems.push(`${name} is required`);
      return '';
    }
    return value;
  }

  optionalString(name: string): string | undefined {
    return this.raw(name);
  }

  /** An IANA time zone name (Europe/Berlin, America/New_York, UTC). */
  timeZone(name: string, fallback: string): string {
    const value = this.raw(name) ?? fallback;
    if (IANAZone.isValidZone(value)) return value;
    this.problems.push(`${name} must be an IANA time zone name such as America/New_York or UTC, got "${value}"`);
    return fallback;
  }

  integer(name: string, fallback: number, { min, max }: { min: number; max: number }): number {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    const parsed = Number(value);
    if (!/^-?\d+$/.test(value) || parsed < min || parsed > max) {
      this.problems.push(`${name} must be an integer from ${min} to ${max}, got "${value}"`);
      return fallback;
    }
    return parsed;
  }

  /** A duration written `90s`, `30m`, `24h` or `7d`, in ms. */
  duration(name: string, fallbackMs: number, { minMs, maxMs }: { minMs: number; maxMs: number }): number {
    const value = this.raw(name);
    if (value === undefined) return fallbackMs;
    const ms = durationMs(value);
    if (ms === undefined || ms < minMs || ms > maxMs) {
      this.problems.push(`${name} must be a duration like 90s, 30m, 24h or 7d, from ${minMs / 1000}s to ${maxMs / 1000}s; got "${value}"`);
      return fallbackMs;
    }
    return ms;
  }

  url(name: string, protocols: string[], fallback?: string): string {
    const value = this.raw(name) ?? fallback;
    if (value === undefined) {
      this.problems.push(`${name} is required (${protocols.join(' or ')} URL)`);
      return '';
    }
    return this.checkUrl(name, value, protocols);
  }

  optionalUrl(name: string, protocols: string[]): string | undefined {
    const value = this.raw(name);
    return value === undefined ? undefined : this.checkUrl(name, value, protocols);
  }

  /**
   * A MongoDB connection string, judged by the driver that will use it (through the MongoDB
   * adapter): a replica set's lists its members (`mongodb://a:27017,b:27017/?replicaSet=rs`),
   * which a URL parser refuses.
   */
  mongodbUri(name: string): string {
    const value = this.raw(name);
    if (value === undefined) return this.url(name, ['mongodb', 'mongodb+srv']);
    if (!/^mongodb(\+srv)?:\/\//i.test(value)) return this.checkUrl(name, value, ['mongodb', 'mongodb+srv']);
    if (!isMongoConnectionString(value)) {
      // Not the driver's message: it may quote the string, password and all.
      this.problems.push(`${name} is not a MongoDB connection string (mongodb://host:port[,host:port...]/?replicaSet=name)`);
    }
    return value;
  }

  private checkUrl(name: string, value: string, protocols: string[]): string {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      this.problems.push(`${name} is not a URL`);
      return value;
    }
    if (!protocols.includes(url.protocol.replace(/:$/, ''))) {
      this.problems.push(`${name} must be a ${protocols.join(' or ')} URL, got ${url.protocol}`);
    }
    return value;
  }

  brokers(name: string): string[] {
    const value = this.raw(name);
    if (value === undefined) {
      this.problems.push(`${name} is required (comma-separated host:port list)`);
      return [];
    }
    const brokers = value.split(',').map((b) => b.trim()).filter(Boolean);
    const bad = brokers.filter((b) => !/^[\w.-]+:\d{1,5}$/.test(b) && !/^\[[\da-fA-F:]+\]:\d{1,5}$/.test(b));
    if (brokers.length === 0 || bad.length > 0) {
      this.problems.push(`${name} must be a comma-separated host:port list, bad entries: ${bad.join(', ') || '(none given)'}`);
    }
    return brokers;
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (!(allowed as readonly string[]).includes(value)) {
      this.problems.push(`${name} must be one of ${allowed.join(', ')}, got "${value}"`);
      return fallback;
    }
    return value as T;
  }

  /** Throws a ConfigError listing every problem found so far. */
  done(): void {
    if (this.problems.length > 0) throw new ConfigError(this.problems);
  }
}
