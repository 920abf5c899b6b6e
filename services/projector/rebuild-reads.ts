/**
 * Which of a batch's sales orders a rebuild must read from the version it fills. Nothing but the
 * rebuild writes that version before its switch (docs/operations.md, `ossn replay`), so a sales
 * order has documents there only if the rebuild wrote them: a resumed rebuild's earlier runs (the
 * ids found at this run's start) or this run. A key counts as written from its first load on (a
 * load comes before every write of its sales order, and a write that failed half way may have
 * taken effect), so it is read again whenever the state cache no longer holds it. The others are
 * known to have no documents: their reads (every one of a fresh rebuild's) are skipped. Should one
 * be wrong (a write of a killed run landing after this run's start), the write of the new document
 * (an insert only while none exists, writes.ts) misses and the batch is retried from a read.
 * Pure: no I/O. Holds one key per sales order seen.
 */
export class RebuildReads {
  private readonly written: Set<string>;

  /** `written`: the ids the version held at the start (the rebuild's own, from earlier runs). */
  constructor(written: Iterable<string>) {
    this.written = new Set(written);
  }

  /** Of `keys` (about to be loaded, then written), those that may have documents: to read from the store. */
  toRead(keys: readonly string[]): string[] {
    const read = keys.filter((key) => this.written.has(key));
    for (const key of keys) this.written.add(key);
    return read;
  }
}
