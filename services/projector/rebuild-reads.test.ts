import { describe, expect, it } from 'vitest';
import { RebuildReads } from './rebuild-reads.js';

describe('which sales orders a rebuild reads from the version it fills', () => {
  const cases: { name: string; atStart: string[]; loads: string[][]; reads: string[][] }[] = [
    { name: 'a fresh rebuild reads nothing the first time it sees a sales order', atStart: [], loads: [['C:1', 'C:2']], reads: [[]] },
    { name: 'a resumed rebuild reads the sales orders its earlier runs wrote, and only those', atStart: ['C:1', 'C:3'], loads: [['C:1', 'C:2', 'C:3']], reads: [['C:1', 'C:3']] },
    { name: 'a sales order loaded once is read at every later load (the cache dropped it, or its write failed)', atStart: [], loads: [['C:1'], ['C:1', 'C:2'], ['C:2']], reads: [[], ['C:1'], ['C:2']] },
    { name: 'a key twice in one load is read at neither (it had no documents before the load)', atStart: [], loads: [['C:1', 'C:1']], reads: [[]] },
  ];
  for (const { name, atStart, loads, reads } of cases) {
    it(name, () => {
      const decide = new RebuildReads(atStart);
      expect(loads.map((keys) => decide.toRead(keys))).toEqual(reads);
    });
  }
});
