// The events docs/erp-events.md shows are events of the contract: each ```json block parses as the
// projector parses it and validates against the committed JSON Schema, and together, one sales
// order's story, they fold with nothing rejected.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { parseErpEvent, type ErpEvent } from '../../contracts/erp-events.js';
import { erpEventsSchemaPath } from '../../contracts/schema-file.js';
import { foldEvents } from '../../projections/fold.js';
import { fencedBlocks, readDoc, repositoryRoot } from './markdown.js';

const guide = 'docs/erp-events.md';

describe(`${guide}: its examples`, () => {
  const examples = fencedBlocks(readDoc(guide)).filter((b) => b.lang === 'json');

  it('are events of the contract, by the parser and by the JSON Schema file', () => {
    expect(examples.length).toBeGreaterThanOrEqual(5);
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    ajvFormats.default(ajv);
    const validate = ajv.compile(JSON.parse(readFileSync(join(repositoryRoot, erpEventsSchemaPath), 'utf8')) as object);
    for (const { text, line } of examples) {
      const parsed = parseErpEvent(text);
      expect(parsed.ok ? [] : parsed.errors, `${guide} line ${line}`).toEqual([]);
      expect(validate(JSON.parse(text)), `${guide} line ${line}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
  });

  it('fold, as one sales order in sequence, with nothing rejected', () => {
    const events = examples.map(({ text }) => parseErpEvent(text)).flatMap((p) => (p.ok ? [p.event] : [])) as ErpEvent[];
    events.sort((a, b) => a.sequence - b.sequence);
    const folded = foldEvents(events);
    expect(folded.rejected.map((r) => r.reason)).toEqual([]);
    expect(folded.orderStatus.size).toBe(1);
  });
});
