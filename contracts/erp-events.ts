// The ERP event contract (v1 and v2): one import for schema, types, validator and transport rules.
export * from './erp-event-schema.js';
export * from './parse-erp-event.js';
export * from './transport.js';
