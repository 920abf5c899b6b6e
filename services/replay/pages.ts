/** Settles the documents a cursor yields a page at a time (the last page partly full): bounded memory on any collection. */
export async function settleInPages<T>(documents: AsyncIterable<T>, size: number, settle: (page: T[]) => Promise<void>): Promise<void> {
  let page: T[] = [];
  for await (const doc of documents) {
    page.push(doc);
    if (page.length >= size) {
      await settle(page);
      page = [];
    }
  }
  if (page.length > 0) await settle(page);
}

export interface SettleOptions {
  /**
   * Only the documents the live version changed at or after this time (read through its change- or
   * news-time index); every rebuilt document when absent.
   */
  liveChangedSince?: Date;
  /**
   * After the switch: what the live version does not show as it is gets the database's time now.
   * Before it (false): such times are left as they are, and only what the live version shows as it
   * is takes the live version's time.
   */
  stamp: boolean;
}
