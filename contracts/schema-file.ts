import { erpEventJsonSchema } from './erp-event-schema.js';

// The contract as a committed file for those who validate or generate code without TypeScript
// (docs/erp-events.md). It is written from the TypeBox source by `npm run contracts:schema`, and a
// test fails when the committed file differs from what the source gives.

/** Where the file lives, from the repository's root. */
export const erpEventsSchemaPath = 'contracts/erp-events.schema.json';

/** The file's text: the contract (v2, which holds v1) as JSON Schema draft 2020-12. */
export function erpEventsSchemaText(): string {
  return `${JSON.stringify(erpEventJsonSchema, null, 2)}\n`;
}
