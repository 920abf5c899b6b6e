import { describe, expect, it } from 'vitest';
import type { ErpEvent } from '../../contracts/erp-events.js';
import { asV2, locationRecorded, packageShipped, packageVoided, shipmentCompleted, statusChanged } from '../../test/fixtures/sample-events.js';
import { evolveShipments } from '../shipments.js';
import type { ShipmentsState } from '../state.js';
import type { ShipmentsDocument } from '../../services/adapters/mongodb/documents.js';
import { carriedOver, visibleTimes, type VisibleTimes } from './change-times.js';

// The states come from the real fold, so that unchanged parts are shared between them as the
// projector's are.
const fold = (state: ShipmentsState | undefined, ...events: ErpEvent[]) => events.reduce(evolveShipments, state)!;

const now = { from: 'now' } as const;
const none = { from: 'none' } as const;
const stored = (location?: number, pkg?: number) => ({ from: 'stored', ...(location === undefined ? {} : { location }), ...(pkg === undefined ? {} : { package: pkg }) });

describe('visibleTimes: what a write makes visible', () => {
  const shipped = fold(undefined, statusChanged(1), locationRecorded(2, 1), packageShipped(3, 1, 1), locationRecorded(4, 2));

  it('a new document: every package now; a flag that starts clear has no time; the purchase order set now', () => {
    expect(visibleTimes(undefined, shipped)).toEqual({
      completeChangedAt: none,
      purchaseOrderSetAt: now,
      rewritesLocations: true,
      locations: [
        { completeChangedAt: none, packages: [now], references: [none] },
        { completeChangedAt: none, packages: [], references: [] },
      ],
    });
    // A location completed within the first batch is a flag that changed.
    const completed = fold(undefined, locationRecorded(1, 1), shipmentCompleted(2, 1));
    expect(visibleTimes(undefined, completed)).toMatchObject({ completeChangedAt: now, purchaseOrderSetAt: none, locations: [{ completeChangedAt: now }] });
  });

  it('recording a location again keeps its packages’ times and its flag’s', () => {
    const again = fold(shipped, locationRecorded(5, 1, { shipTo: { address1: '9 Other St', city: 'Austin', region: 'TX', postalCode: '73301' } }));
    expect(visibleTimes(shipped, again)).toEqual({
      completeChangedAt: stored(),
      purchaseOrderSetAt: stored(),
      rewritesLocations: true,
      locations: [
        { completeChangedAt: stored(0), packages: [stored(0, 0)], references: [stored(0, 0)] },
        { completeChangedAt: stored(1), packages: [], references: [] },
      ],
    });
  });

  it('a new package is made visible now, the others keep theirs; one shipped again as it was is not new, one that differs is', () => {
    const second = fold(shipped, packageShipped(5, 1, 2));
    expect(visibleTimes(shipped, second).locations[0]!.packages).toEqual([stored(0, 0), now]);
    const same = fold(second, packageShipped(6, 1, 2));
    expect(visibleTimes(second, same).locations[0]!.packages).toEqual([stored(0, 0), stored(0, 1)]);
    const corrected = fold(same, packageShipped(7, 1, 2, { trackingNumber: '1ZCORRECTED' }));
    expect(visibleTimes(same, corrected).locations[0]!.packages).toEqual([stored(0, 0), now]);
  });

  it('a package sent again with only contract v2 extras changed is no news: 1.0.0 shows it as it was', () => {
    const extras = fold(shipped, asV2(packageShipped(5, 1, 1, { carrierService: 'Ground', preProductionProof: 'Yes' })));
    expect(extras.locations[0]!.packages[0]!.carrierService).toBe('Ground');
    expect(visibleTimes(shipped, extras).locations[0]!.packages).toEqual([stored(0, 0)]);
    const shown = { ...extras, locations: extras.locations.map((l) => ({ ...l, packages: l.packages.map((p) => ({ ...p, visibleAt: new Date(1) })) })) } as ShipmentsDocument;
    expect(carriedOver(visibleTimes(undefined, shipped), shipped, shown).locations[0]!.packages).toEqual([{ from: 'value', at: new Date(1) }]);
  });

  it('a package sent again with an item changed is news; with only an item’s unit (a v2 extra) changed it is not', () => {
    const item = { supplierProductId: 'MUG-11', purchaseOrderLineNumber: '1', quantity: 12 };
    const withItems = fold(shipped, asV2(packageShipped(5, 1, 1, { items: [item] })));
    const moreOfIt = fold(withItems, asV2(packageShipped(6, 1, 1, { items: [{ ...item, quantity: 24 }] })));
    expect(visibleTimes(withItems, moreOfIt).locations[0]!.packages).toEqual([now]);
    const anotherOne = fold(withItems, asV2(packageShipped(6, 1, 1, { items: [item, { ...item, supplierProductId: 'PEN-2' }] })));
    expect(visibleTimes(withItems, anotherOne).locations[0]!.packages).toEqual([now]);
    const inDozens = fold(withItems, asV2(packageShipped(6, 1, 1, { items: [{ ...item, uom: 'DZ' as const }] })));
    expect(inDozens.locations[0]!.packages[0]!.items?.[0]?.uom).toBe('DZ');
    expect(visibleTimes(withItems, inDozens).locations[0]!.packages).toEqual([stored(0, 0)]);
  });

  it('a voided package leaves the others’ times where they are, though their places in the location move', () => {
    const two = fold(shipped, packageShipped(5, 1, 2));
    const voided = fold(two, packageVoided(6, 1, 1));
    expect(visibleTimes(two, voided).locations[0]!.packages).toEqual([stored(0, 1)]);
  });

  it('a complete flag that changes is stamped: the location’s, and the sales order’s when it changes too', () => {
    const first = fold(shipped, shipmentCompleted(5, 1));
    expect(visibleTimes(shipped, first)).toMatchObject({ completeChangedAt: stored(), locations: [{ completeChangedAt: now }, { completeChangedAt: stored(1) }] });
    const whole = fold(first, shipmentCompleted(6));
    expect(visibleTimes(first, whole)).toMatchObject({ completeChangedAt: now, locations: [{ completeChangedAt: stored(0) }, { completeChangedAt: now }] });
    // A location recorded after all others completed makes the sales order incomplete again.
    const reopened = fold(first, shipmentCompleted(6, 2), locationRecorded(7, 3));
    expect(visibleTimes(fold(first, shipmentCompleted(6, 2)), reopened)).toMatchObject({ completeChangedAt: now, locations: [{}, {}, { completeChangedAt: none }] });
  });

  it('coming under a purchase order makes every package new to it; a status that keeps the number changes nothing', () => {
    const unnumbered = fold(undefined, locationRecorded(1, 1), packageShipped(2, 1, 1));
    const numbered = fold(unnumbered, statusChanged(3));
    expect(numbered.locations).toBe(unnumbered.locations);
    expect(visibleTimes(unnumbered, numbered)).toMatchObject({ purchaseOrderSetAt: now, rewritesLocations: true, locations: [{ packages: [now] }] });
    const renumbered = fold(numbered, statusChanged(4, { purchaseOrderNumber: 'PO-2', statusId: 20 }));
    expect(visibleTimes(numbered, renumbered)).toMatchObject({ purchaseOrderSetAt: now, locations: [{ packages: [now] }] });
    const dropped = fold(renumbered, statusChanged(5, { statusId: 20 }));
    expect(visibleTimes(renumbered, dropped)).toMatchObject({ purchaseOrderSetAt: stored(), rewritesLocations: false });
  });
});

describe('carriedOver: a rebuild keeps the times partners have seen', () => {
  const state = fold(undefined, statusChanged(1), locationRecorded(2, 1), packageShipped(3, 1, 1), packageShipped(4, 1, 2), shipmentCompleted(5, 1));
  const at = (iso: string) => new Date(iso);
  const shownLike = (s: ShipmentsState, times: { package: Date[]; location?: Date; so?: Date; po?: Date }): ShipmentsDocument => ({
    _id: 'C1:SO-1',
    ...s,
    ...(times.so ? { completeChangedAt: times.so } : {}),
    ...(times.po ? { purchaseOrderSetAt: times.po } : {}),
    locations: s.locations.map((l) => ({ ...l, ...(times.location ? { completeChangedAt: times.location } : {}), packages: l.packages.map((p, j) => ({ ...p, visibleAt: times.package[j]! })) })),
  });
  const times = visibleTimes(undefined, state);

  it('carries over every time of what the live version shows as it is', () => {
    const shown = shownLike(state, { package: [at('2026-01-01T00:00:00Z'), at('2026-01-02T00:00:00Z')], location: at('2026-01-03T00:00:00Z'), so: at('2026-01-03T00:00:00Z'), po: at('2025-12-01T00:00:00Z') });
    expect(carriedOver(times, state, shown)).toEqual({
      completeChangedAt: { from: 'value', at: at('2026-01-03T00:00:00Z') },
      purchaseOrderSetAt: { from: 'value', at: at('2025-12-01T00:00:00Z') },
      rewritesLocations: true,
      locations: [
        {
          completeChangedAt: { from: 'value', at: at('2026-01-03T00:00:00Z') },
          packages: [
            { from: 'value', at: at('2026-01-01T00:00:00Z') },
            { from: 'value', at: at('2026-01-02T00:00:00Z') },
          ],
          // Shown with the same (no) references, never changed: no time.
          references: [none, none],
        },
      ],
    } satisfies VisibleTimes);
  });

  it('stamps what the live version does not show as it is', () => {
    const before = fold(undefined, statusChanged(1), locationRecorded(2, 1), packageShipped(3, 1, 1, { trackingNumber: '1ZOTHER' }));
    const shown = shownLike(before, { package: [at('2026-01-01T00:00:00Z')] });
    // Package 1 differs, package 2 is not there, the location is not complete there.
    expect(carriedOver(times, state, shown).locations).toEqual([{ completeChangedAt: now, packages: [now, now], references: [none, none] }]);
    // Shown with no time (written before times were recorded): shown long ago, so no time.
    expect(carriedOver(times, state, shownLike(state, { package: [] })).locations[0]!.completeChangedAt).toEqual(none);
  });

  it('a package under another purchase order there is new under this one', () => {
    const elsewhere = shownLike(fold(state, statusChanged(6, { purchaseOrderNumber: 'PO-OTHER', statusId: 20 })), { package: [at('2026-01-01T00:00:00Z'), at('2026-01-01T00:00:00Z')] });
    expect(carriedOver(times, state, elsewhere)).toMatchObject({ purchaseOrderSetAt: now, locations: [{ packages: [now, now] }] });
  });

  it('keeps what is stored and what has no time, and changes nothing without a live version', () => {
    const later = fold(state, locationRecorded(6, 1));
    const kept = visibleTimes(state, later);
    expect(carriedOver(kept, later, shownLike(later, { package: [at('2026-01-01T00:00:00Z'), at('2026-01-01T00:00:00Z')] }))).toEqual(kept);
    expect(carriedOver(times, state, undefined)).toBe(times);
  });
});
