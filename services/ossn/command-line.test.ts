import { describe, expect, it } from 'vitest';
import { asksForHelp, parseCommandLine, takeAction, type CommandLineSpec, type OptionSpecs } from './command-line.js';
import { UsageError } from './usage.js';

const publish = {
  name: 'publish',
  options: { 'create-topics': { type: 'boolean' }, 'dry-run': { type: 'boolean' } },
  positionals: { names: '<file.ndjson|->', min: 1, max: 1 },
} as const satisfies CommandLineSpec<OptionSpecs>;
const add = {
  name: 'credentials add',
  options: { scopes: { type: 'string' }, clients: { type: 'string' }, generate: { type: 'boolean' }, json: { type: 'boolean' } },
  accepts: ['scopes', 'clients', 'generate'],
  positionals: { names: '<id>', min: 1, max: 1 },
} as const satisfies CommandLineSpec<OptionSpecs>;
const status = { name: 'status', options: { probe: { type: 'string', multiple: true }, json: { type: 'boolean' } } } as const satisfies CommandLineSpec<OptionSpecs>;

function outcome(spec: CommandLineSpec<OptionSpecs>, argv: string[]) {
  try {
    return parseCommandLine(spec, argv);
  } catch (error) {
    if (error instanceof UsageError) return { usage: error.message };
    throw error;
  }
}

describe('parseCommandLine', () => {
  it.each<[string, CommandLineSpec<OptionSpecs>, string[], object]>([
    ['a file', publish, ['events.ndjson'], { values: {}, positionals: ['events.ndjson'] }],
    ['a flag and stdin', publish, ['--dry-run', '-'], { values: { 'dry-run': true }, positionals: ['-'] }],
    ['a value after =', add, ['acme', '--scopes=osn', '--clients', 'C1'], { values: { scopes: 'osn', clients: 'C1' }, positionals: ['acme'] }],
    ['a repeated option', status, ['--probe', 'http://a', '--probe', 'http://b'], { values: { probe: ['http://a', 'http://b'] }, positionals: [] }],
    ['a positional after --', publish, ['--', '--odd-name.ndjson'], { values: {}, positionals: ['--odd-name.ndjson'] }],
    ['an unknown option', publish, ['--bogus', 'x.ndjson'], { usage: 'ossn publish: unknown option --bogus (see ossn publish --help)' }],
    ['an unknown short option', publish, ['-x', 'x.ndjson'], { usage: 'ossn publish: unknown option -x (see ossn publish --help)' }],
    ['an option of another action', add, ['acme', '--json'], { usage: 'ossn credentials add: unknown option --json (see ossn credentials --help)' }],
    ['a password on the command line', add, ['acme', '--password', 'secret'], { usage: 'ossn credentials add: unknown option --password (see ossn credentials --help)' }],
    ['a missing value', add, ['acme', '--scopes'], { usage: 'ossn credentials add: --scopes needs a value (see ossn credentials --help)' }],
    ['the next option taken for a value', add, ['acme', '--scopes', '--clients', 'C1'], { usage: 'ossn credentials add: --scopes needs a value (see ossn credentials --help)' }],
    ['an empty value', add, ['acme', '--scopes='], { usage: 'ossn credentials add: --scopes needs a value (see ossn credentials --help)' }],
    ['a value given to a flag', publish, ['--dry-run=yes', 'x'], { usage: 'ossn publish: --dry-run takes no value (see ossn publish --help)' }],
    ['a missing argument', publish, [], { usage: 'ossn publish: missing <file.ndjson|-> (see ossn publish --help)' }],
    ['an extra argument', publish, ['a', 'b'], { usage: 'ossn publish: unexpected argument "b" (see ossn publish --help)' }],
    ['an argument to a command that takes none', status, ['now'], { usage: 'ossn status: unexpected argument "now" (see ossn status --help)' }],
  ])('%s', (_case, spec, argv, expected) => {
    expect(outcome(spec, argv)).toEqual(expected);
  });

  it('says every mistake in one line, and never echoes what an unknown option was given', () => {
    const { usage } = outcome(add, ['acme', '--password', 'hunter2-secret']) as { usage: string };
    expect(usage.split('\n')).toHaveLength(1);
    expect(usage).not.toContain('hunter2-secret');
  });
});

describe('asksForHelp', () => {
  it.each<[string[], boolean]>([
    [['--help'], true],
    [['-h'], true],
    [['add', 'acme', '--help'], true],
    [['--bogus', '--help'], true],
    [['--', '--help'], false],
    [['help.ndjson'], false],
    [[], false],
  ])('%j: %s', (argv, expected) => {
    expect(asksForHelp(argv)).toBe(expected);
  });
});

describe('takeAction', () => {
  const actions = ['list', 'show', 'redrive'] as const;
  it('takes the first argument as the action', () => {
    expect(takeAction('dlq', actions, ['show', '0:1'])).toEqual({ action: 'show', rest: ['0:1'] });
  });
  it.each<[string[], string]>([
    [[], 'ossn dlq: missing the action (one of list, show, redrive; see ossn dlq --help)'],
    [['lsit'], 'ossn dlq: unknown action "lsit" (one of list, show, redrive; see ossn dlq --help)'],
    [['--all'], 'ossn dlq: unknown action "--all" (one of list, show, redrive; see ossn dlq --help)'],
  ])('refuses %j', (argv, message) => {
    expect(() => takeAction('dlq', actions, argv)).toThrow(new UsageError(message));
  });
});
