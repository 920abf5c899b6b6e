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
