// npm run contracts:schema: writes contracts/erp-events.schema.json from the TypeBox source
// (contracts/erp-event-schema.ts). Run it after changing the contract, and commit both.
import { writeFileSync } from 'node:fs';
import { erpEventsSchemaPath, erpEventsSchemaText } from '../../contracts/schema-file.js';

const file = new URL(`../../${erpEventsSchemaPath}`, import.meta.url);
writeFileSync(file, erpEventsSchemaText());
console.log(`wrote ${erpEventsSchemaPath}`);
