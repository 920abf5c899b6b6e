// The one parser of every `ossn` command line (node:util's parseArgs, its tokens judged here so
// that each mistake is one plain line naming the command, never the parser's own message).
import { parseArgs } from 'node:util';
import { UsageError } from './usage.js';

export interface OptionSpec {
  type: 'string' | 'boolean';
  /** A string option that may be given more than once (its values in order). */
  multiple?: boolean;
}

export type OptionSpecs = Record<string, OptionSpec>;

export type OptionValues<O extends OptionSpecs> = {
  [K in keyof O]?: O[K]['type'] extends 'boolean' ? true : O[K]['multiple'] extends true ? string[] : string;
};

export interface CommandLineSpec<O extends OptionSpecs> {
  /** As the operator types it: `publish`, `credentials add`. */
  name: string;
  options: O;
  /** The options of `options` this command line takes (all when absent): one given to another action is refused. */
  accepts?: readonly (keyof O & string)[];
  /** The positional arguments it takes, as the usage names them (`<file.ndjson|->`), and how many. */
  positionals?: { names: string; min: number; max: number };
}

export interface CommandLine<O extends OptionSpecs> {
  values: OptionValues<O>;
  positionals: string[];
}

/** `--help` or `-h` anywhere before `--`: the command then prints its help and does nothing else. */
export function asksForHelp(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).some((arg) => arg === '--help' || arg === '-h');
}

function refuse(name: string, problem: string): never {
  throw new UsageError(`ossn ${name}: ${problem} (see ossn ${name.split(' ')[0]} --help)`);
}

/** The options and positionals of `argv`, or a UsageError of one line naming what is wrong. */
export function parseCommandLine<O extends OptionSpecs>(spec: CommandLineSpec<O>, argv: readonly string[]): CommandLine<O> {
  const accepted = new Set<string>(spec.accepts ?? Object.keys(spec.options));
  const { tokens } = parseArgs({
    args: [...argv],
    options: Object.fromEntries(Object.entries(spec.options).map(([name, option]) => [name, { type: option.type, multiple: option.multiple === true }])),
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const values: Record<string, string | string[] | true> = {};
  const positionals: string[] = [];
  for (const token of tokens) {
    if (token.kind === 'positional') {
      positionals.push(token.value);
      continue;
    }
    if (token.kind !== 'option') continue;
    const option = spec.options[token.name];
    if (!option || !accepted.has(token.name)) refuse(spec.name, `unknown option ${token.rawName}`);
    if (option.type === 'boolean') {
      if (token.inlineValue) refuse(spec.name, `${token.rawName} takes no value`);
      values[token.name] = true;
    } else if (token.value === undefined || token.value === '' || (!token.inlineValue && token.value.startsWith('-'))) {
      // `--scopes --clients C1`: the next option is not the value of this one.
      refuse(spec.name, `${token.rawName} needs a value`);
    } else if (option.multiple) {
      values[token.name] = [...((values[token.name] as string[] | undefined) ?? []), token.value];
    } else {
      values[token.name] = token.value;
    }
  }
  const { names = '', min = 0, max = 0 } = spec.positionals ?? {};
  if (positionals.length > max) refuse(spec.name, `unexpected argument "${positionals[max]}"`);
  if (positionals.length < min) refuse(spec.name, `missing ${names}`);
  return { values: values as OptionValues<O>, positionals };
}

/**
 * The action of a command made of actions (`credentials add`, `dlq list`): its first argument,
 * one of `actions`, and the arguments after it.
 */
export function takeAction<A extends string>(command: string, actions: readonly A[], argv: readonly string[]): { action: A; rest: string[] } {
  const [first, ...rest] = argv;
  const hint = `(one of ${actions.join(', ')}; see ossn ${command} --help)`;
  if (first === undefined) throw new UsageError(`ossn ${command}: missing the action ${hint}`);
  if (!(actions as readonly string[]).includes(first)) throw new UsageError(`ossn ${command}: unknown action "${first}" ${hint}`);
  return { action: first as A, rest };
}
