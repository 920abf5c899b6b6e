#!/usr/bin/env node
// The `ossn` command: runs the TypeScript entry point through tsx, so there is no build step.
import { register } from 'tsx/esm/api';

register();
await import('../services/ossn/ossn.ts');
