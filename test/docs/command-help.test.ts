// What `ossn <command> --help` sends an operator to read exists: each document a help text names is
// one under docs/ (the README is only the map), and the section named beside it is a heading there.
import { describe, expect, it } from 'vitest';
import { credentialsCommand } from '../../services/ossn/commands/credentials.js';
import { demoEventsCommand } from '../../services/ossn/commands/demo-events.js';
import { dlqCommand } from '../../services/ossn/commands/dlq.js';
import { projectorCommand } from '../../services/ossn/commands/projector.js';
import { publishCommand } from '../../services/ossn/commands/publish.js';
import { pushCommand } from '../../services/ossn/commands/push.js';
import { replayCommand } from '../../services/ossn/commands/replay.js';
import { serveCommand } from '../../services/ossn/commands/serve.js';
import { setupCommand } from '../../services/ossn/commands/setup.js';
import { startCommand } from '../../services/ossn/commands/start.js';
import { statusCommand } from '../../services/ossn/commands/status.js';
import { documents, headings, readDoc } from './markdown.js';

const helps = {
  start: startCommand.help,
  serve: serveCommand.help,
  projector: projectorCommand.help,
  setup: setupCommand.help,
  publish: publishCommand.help,
  'demo-events': demoEventsCommand.help,
  credentials: credentialsCommand.help,
  dlq: dlqCommand.help,
  push: pushCommand.help,
  replay: replayCommand.help,
  status: statusCommand.help,
};

/** Each `*.md` a help text names, with the `(Section)` right after it when there is one. */
function references(help: string): { file: string; section: string | undefined }[] {
  return [...help.replace(/\s+/g, ' ').matchAll(/([\w./-]*\.md)(?: \(([^)]+)\))?/g)].map((m) => ({ file: m[1]!, section: m[2] }));
}

describe('the documents each command help names', () => {
  it.each(Object.entries(helps))('ossn %s --help names documents under docs/ and sections that are there', (_name, help) => {
    for (const { file, section } of references(help)) {
      expect(file, `${file} is not a document under docs/`).toMatch(/^docs\//);
      expect(documents()).toContain(file);
      if (section !== undefined) expect(headings(readDoc(file))).toContain(section);
    }
  });

  it('finds the references it checks', () => {
    expect(references('see docs/operations.md (Configuration) and docs/erp-events.md')).toEqual([
      { file: 'docs/operations.md', section: 'Configuration' },
      { file: 'docs/erp-events.md', section: undefined },
    ]);
  });
});
