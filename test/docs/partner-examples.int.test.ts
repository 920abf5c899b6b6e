// docs/partners.md as a partner uses it: every curl example in it is run, as written, through a
// shell against the real app over the demo data set that `ossn start` publishes (seed 1, the demo
// credential's clients), and its answer must be the one the guide shows under it (```http: the
// status line, the headers shown, and the body shown, JSON as a subset and XML line by line).
import { execFile } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { demoClientIds, demoCredentialId } from '../../services/domain/credentials/demo-credential.js';
import { useDemoApp } from '../clients/demo-app.js';
import { fencedBlocks, readDoc, type FencedBlock } from './markdown.js';

const guide = 'docs/partners.md';
const password = 'partner-guide-example';
const run = promisify(execFile);

interface Example {
  command: FencedBlock;
  answer: FencedBlock | undefined;
}

/** Each ```sh block that runs curl, with the ```http block right after it. */
function examples(): Example[] {
  const blocks = fencedBlocks(readDoc(guide));
  return blocks.flatMap((block, i) => (block.lang === 'sh' && /\bcurl\b/.test(block.text) ? [{ command: block, answer: blocks[i + 1]?.lang === 'http' ? blocks[i + 1] : undefined }] : []));
}

interface HttpAnswer {
  status: number;
  headers: Map<string, string>;
  body: string;
}

function parseAnswer(text: string): HttpAnswer {
  const normalized = text.replace(/\r\n/g, '\n');
  // curl -i prints every response of the exchange; a 100 Continue comes before the real one.
  const parts = normalized.split(/\n\n/);
  while (/^HTTP\/\S+ 100\b/.test(parts[0] ?? '') && parts.length > 1) parts.shift();
  const [head = '', ...rest] = parts;
  const [statusLine = '', ...headerLines] = head.split('\n');
  const status = Number(/^HTTP\/\S+ (\d{3})/.exec(statusLine)?.[1]);
  const headers = new Map(headerLines.filter((l) => l.includes(':')).map((l) => [l.slice(0, l.indexOf(':')).trim().toLowerCase(), l.slice(l.indexOf(':') + 1).trim()] as const));
  return { status, headers, body: rest.join('\n\n').trim() };
}

const ELLIPSIS = '…';

/** `shown` is `actual` abridged: every key shown equal (or "…", any value), arrays a prefix ([] only an empty one), strings ending in … a prefix. */
function abridges(shown: unknown, actual: unknown, path = '$'): string[] {
  if (shown === ELLIPSIS) return actual === undefined ? [`${path}: missing`] : [];
  if (typeof shown === 'string' && shown.endsWith(ELLIPSIS)) {
    return typeof actual === 'string' && actual.startsWith(shown.slice(0, -1)) ? [] : [`${path}: ${JSON.stringify(actual)} does not start with ${JSON.stringify(shown.slice(0, -1))}`];
  }
  if (Array.isArray(shown)) {
    if (!Array.isArray(actual)) return [`${path}: not an array`];
    // An empty array shown is an empty answer ("no orders"), not an abridged one.
    if (shown.length === 0 && actual.length > 0) return [`${path}: ${actual.length} items, the guide shows none`];
    if (shown.length > actual.length) return [`${path}: ${actual.length} items, the guide shows ${shown.length}`];
    return shown.flatMap((item, i) => abridges(item, actual[i], `${path}[${i}]`));
  }
  if (shown !== null && typeof shown === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return [`${path}: not an object`];
    return Object.entries(shown).flatMap(([key, value]) => abridges(value, (actual as Record<string, unknown>)[key], `${path}.${key}`));
  }
  return Object.is(shown, actual) ? [] : [`${path}: ${JSON.stringify(actual)}, the guide shows ${JSON.stringify(shown)}`];
}

/** The lines the guide shows (a … line stands for lines left out), in this order in the actual body. */
function linesInOrder(shown: string, actual: string): string[] {
  let from = 0;
  for (const shownLine of shown.split('\n').map((l) => l.trim()).filter((l) => l !== '' && l !== ELLIPSIS)) {
    // A line ending in … stands for the lines that start so.
    const line = shownLine.endsWith(ELLIPSIS) ? shownLine.slice(0, -1) : shownLine;
    const at = actual.indexOf(line, from);
    if (at < 0) return [`not found after offset ${from}: ${line}`];
    from = at + line.length;
  }
  return [];
}

function differences(shownText: string, actual: HttpAnswer): string[] {
  const shown = parseAnswer(shownText);
  const problems: string[] = [];
  if (shown.status !== actual.status) problems.push(`status ${actual.status}, the guide shows ${shown.status}`);
  for (const [name, value] of shown.headers) {
    const got = actual.headers.get(name);
    const ok = value.endsWith(ELLIPSIS) ? got?.startsWith(value.slice(0, -1)) : got === value;
    if (!ok) problems.push(`header ${name}: ${JSON.stringify(got)}, the guide shows ${JSON.stringify(value)}`);
  }
  if (shown.body === '') return problems;
  if (/^[[{]/.test(shown.body)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(actual.body);
    } catch {
      return [...problems, `the body is not JSON: ${actual.body.slice(0, 200)}`];
    }
    return [...problems, ...abridges(JSON.parse(shown.body), parsed)];
  }
  return [...problems, ...linesInOrder(shown.body, actual.body)];
}

describe(`${guide}: every example, run against the real app`, () => {
  const demo = useDemoApp('partner-guide', { seed: 1, partner: { id: demoCredentialId, password }, clientIds: demoClientIds });
  let ready = 0;
  beforeAll(() => {
    // Polls "from now" (a time in whole seconds) must not see the seeding's changes through the
    // lookups' 5 s overlap.
    ready = Date.now() + 8_000;
  });

  it('has examples, each with the answer it gives', () => {
    const all = examples();
    expect(all.length).toBeGreaterThanOrEqual(10);
    expect(all.filter((e) => !e.answer).map((e) => `line ${e.command.line}`)).toEqual([]);
  });

  it('gives the answers the guide shows', async () => {
    await sleep(Math.max(0, ready - Date.now()));
    const failures: string[] = [];
    for (const { command, answer } of examples()) {
      const { stdout } = await run('sh', ['-c', command.text], {
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', OSSN: demo.url, ID: demoCredentialId, PASSWORD: password },
        timeout: 20_000,
        maxBuffer: 64 * 2 ** 20,
      });
      const problems = differences(answer?.text ?? '', parseAnswer(stdout));
      if (problems.length > 0) failures.push(`${guide} line ${command.line}:\n  ${problems.join('\n  ')}\n  got: ${stdout.slice(0, 1500)}`);
    }
    expect(failures.join('\n\n')).toBe('');
  }, 120_000);
});
