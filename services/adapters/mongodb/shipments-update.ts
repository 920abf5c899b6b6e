import type { Document } from 'mongodb';
import type { LocationState, PackageState, ShipmentsState } from '../../../projections/state.js';
import { stampsAny, type LeftTimes, type TimeSource, type VisibleTimes } from '../../../projections/polling/change-times.js';

// Shipments documents are written with aggregation-pipeline updates where the write makes
// something visible: only there can the server's clock ($$NOW) be put inside the packages and
// locations of a replaced array, and be one time for the whole write ($currentDate reads the clock
// once per field: two fields it stamps in one update can differ by a millisecond), and can a time
// be kept from the stored document. Every value of the state goes in as a $literal, so that no
// text of the ERP (an address starting with "$") is read as an expression.
//
// A pipeline costs the server (MongoDB 6.0) about twice what the same change in plain update
// operators does: it parses every expression of every update. So a write that stamps nothing and
// leaves every time as it is (a location recorded, an address changed) is said in plain operators
// (plainInsert, plainUpdate), and a pipeline keeps its expressions few: a location or package the
// write leaves as it is stays the stored one, and the news time of a write that stamps is the server's time
// (see stampedNewsTime) rather than the latest of every time the document holds, recomputed.

const storedLocation = (i: number) => ({ $arrayElemAt: ['$locations', i] });

function storedTime(source: Extract<TimeSource, { from: 'stored' }>, field: string): Document {
  const i = source.location ?? -1;
  const input = source.package === undefined ? storedLocation(i) : { $arrayElemAt: [{ $getField: { field: 'packages', input: storedLocation(i) } }, source.package] };
  return { $getField: { field, input } };
}

/** The expression of a nested time; '$$REMOVE' leaves the field out. */
function nestedTime(source: TimeSource, field: string): unknown {
  switch (source.from) {
    case 'now':
      return '$$NOW';
    case 'value':
      return { $literal: source.at };
    case 'none':
      return '$$REMOVE';
    case 'stored':
      return { $ifNull: [storedTime(source, field), '$$REMOVE'] };
  }
}

/** Whether a time is the one stored at this place. */
const storedAt = (source: TimeSource, location: number, pkg?: number): boolean => source.from === 'stored' && source.location === location && source.package === pkg;

const storedPackage = (location: number, pkg: number) => ({ $arrayElemAt: [{ $getField: { field: 'packages', input: storedLocation(location) } }, pkg] });

/**
 * A location written anew. With `before` (the state the stored document holds), a package that is
 * the very one stored, its time kept, stays as stored: fewer expressions than the package anew.
 */
function locationExpression(location: LocationState, times: VisibleTimes['locations'][number], before?: ShipmentsState): Document {
  const { packages, ...rest } = location;
  const packageExpression = (pkg: PackageState, j: number) => {
    const [source, references] = [times.packages[j]!, times.references[j]!];
    if (
      source.from === 'stored' &&
      source.location !== undefined &&
      source.package !== undefined &&
      storedAt(references, source.location, source.package) &&
      before?.locations[source.location]?.packages[source.package] === pkg
    ) {
      return storedPackage(source.location, source.package);
    }
    // A package whose references never changed (most) gets no expression for their time.
    const referencesTime = references.from === 'none' ? {} : { referencesChangedAt: nestedTime(references, 'referencesChangedAt') };
    return { $mergeObjects: [{ $literal: pkg }, { visibleAt: nestedTime(source, 'visibleAt'), ...referencesTime }] };
  };
  return {
    $mergeObjects: [
      { $literal: rest },
      {
        packages: packages.map(packageExpression),
        completeChangedAt: nestedTime(times.completeChangedAt, 'completeChangedAt'),
      },
    ],
  };
}

/** The values of a field of every package, flat. */
const ofEveryPackage = (field: string) => ({ $reduce: { input: `$locations.packages.${field}`, initialValue: [], in: { $concatArrays: ['$$value', '$$this'] } } });

/** The document's latest news time (see ShipmentsDocument.lastNewsAt), recomputed from what it holds after the write. */
const lastNewsAtExpression: Document = {
      $ifNull: [
        {
          $max: [
            { $max: ofEveryPackage('shipmentDate') },
            { $max: ofEveryPackage('visibleAt') },
            // News to 2.1.0 alone: 1.0.0's and 2.0.0's queryType 3 then find the sales order with nothing to answer.
            { $max: ofEveryPackage('referencesChangedAt') },
            { $max: '$locations.completeChangedAt' },
            // A purchase order's flag can change through these alone (a sales order reopened by a
            // location with no package, or one coming under a complete purchase order).
            '$completeChangedAt',
            '$purchaseOrderSetAt',
            { $max: '$leftPurchaseOrders.at' },
          ],
        },
        '$$REMOVE',
      ],
};
const lastNewsAt: Document = { $set: { lastNewsAt: lastNewsAtExpression } };

type TopLevelTime = 'completeChangedAt' | 'purchaseOrderSetAt';
const topLevelTimes: TopLevelTime[] = ['completeChangedAt', 'purchaseOrderSetAt'];

/** Sales order times to set; a stored one is left as it is, 'none' is for the caller to remove. */
function topLevelSets(times: VisibleTimes): Document {
  const sets: Document = {};
  for (const field of topLevelTimes) {
    const source = times[field];
    if (source.from === 'now') sets[field] = '$$NOW';
    else if (source.from === 'value') sets[field] = { $literal: source.at };
  }
  return sets;
}

/** The purchase orders left after the write: the stored entries it neither replaces nor drops, then those it sets. */
function leftExpression(left: LeftTimes, stored: unknown): Document {
  const replaced = [...left.set.map((entry) => entry.purchaseOrderNumber), ...left.drop];
  const set = left.set.map((entry) => ({ purchaseOrderNumber: { $literal: entry.purchaseOrderNumber }, at: entry.at.from === 'now' ? '$$NOW' : { $literal: entry.at.at } }));
  return {
    $concatArrays: [{ $filter: { input: { $ifNull: [stored, []] }, as: 'e', cond: { $not: [{ $in: ['$$e.purchaseOrderNumber', { $literal: replaced }] }] } } }, set],
  };
}

const literals = (fields: Document) => Object.fromEntries(Object.entries(fields).map(([name, value]) => [name, { $literal: value }]));

/** Whether the write stamps the server's time anywhere. */
/**
 * The news time of a write that stamps the server's time: the latest of that time, the ERP's
 * shipmentDates and the times carried over, which is the latest of every time the document holds
 * (every other one the server stamped earlier, and its clock does not go back), without reading
 * them. undefined for a write that stamps nothing: the document's own times are then the ones.
 */
function stampedNewsTime(state: ShipmentsState, times: VisibleTimes): unknown {
  if (!stampsAny(times)) return undefined;
  let known = -Infinity;
  const knowValue = (source: TimeSource) => {
    if (source.from === 'value') known = Math.max(known, source.at.getTime());
  };
  knowValue(times.completeChangedAt);
  knowValue(times.purchaseOrderSetAt);
  for (const [i, location] of state.locations.entries()) {
    knowValue(times.locations[i]!.completeChangedAt);
    times.locations[i]!.packages.forEach(knowValue);
    times.locations[i]!.references.forEach(knowValue);
    for (const pkg of location.packages) known = Math.max(known, pkg.shipmentDate.getTime());
  }
  return known === -Infinity ? '$$NOW' : { $max: ['$$NOW', { $literal: new Date(known) }] };
}

/**
 * The locations of `state` over the stored ones (`before`, when the stored document holds it): a
 * location that is the very one stored at its place, with every time kept there, stays as stored.
 */
function locationsOver(state: ShipmentsState, times: VisibleTimes, before?: ShipmentsState): unknown[] {
  return state.locations.map((location, i) => {
    const locationTimes = times.locations[i]!;
    const kept = (source: TimeSource, pkg?: number) => storedAt(source, i, pkg);
    if (before?.locations[i] === location && kept(locationTimes.completeChangedAt) && [locationTimes.packages, locationTimes.references].every((sources) => sources.every((source, j) => kept(source, j)))) {
      return storedLocation(i);
    }
    return locationExpression(location, locationTimes, before);
  });
}

/**
 * A new document, for an upsert whose filter is its _id alone: it takes effect only where no
 * document exists (the pipeline keeps one that another writer put there first, untouched).
 */
export function insertPipeline(id: string, state: ShipmentsState, times: VisibleTimes): Document[] {
  const { locations: _, ...rest } = state;
  const newsTime = stampedNewsTime(state, times);
  const created = {
    $mergeObjects: [
      { $literal: { _id: id, ...rest } },
      {
        locations: locationsOver(state, times),
        ...topLevelSets(times),
        ...(times.left && times.left.set.length > 0 ? { leftPurchaseOrders: leftExpression(times.left, []) } : {}),
        ...(newsTime === undefined ? {} : { lastNewsAt: newsTime }),
      },
    ],
  };
  return [{ $replaceWith: { $cond: [{ $eq: [{ $type: '$sequence' }, 'missing'] }, created, '$$ROOT'] } }, ...(newsTime === undefined ? [lastNewsAt] : [])];
}

/**
 * An update of a stored document: the fields that changed, those removed, and the times. With
 * `before`, the state the stored document holds (the write is guarded on it), a location left as
 * it was stays as stored.
 */
export function updatePipeline(changed: Document, removed: string[], state: ShipmentsState, times: VisibleTimes, before?: ShipmentsState): Document[] {
  const { locations: _, ...changedValues } = changed;
  const set: Document = { ...literals(changedValues), ...topLevelSets(times) };
  if (times.rewritesLocations) set.locations = locationsOver(state, times, before);
  if (times.left) set.leftPurchaseOrders = leftExpression(times.left, '$leftPurchaseOrders');
  const newsTime = stampedNewsTime(state, times);
  if (newsTime !== undefined) set.lastNewsAt = newsTime;
  const unset = [...removed, ...topLevelTimes.filter((field) => times[field].from === 'none')];
  return [{ $set: set }, ...(unset.length > 0 ? [{ $unset: unset }] : []), ...(newsTime === undefined ? [lastNewsAt] : [])];
}

/** A field only a guarded pipeline holds between its stages: whether its guard held. */
const guardHeld = '_ossnGuardHeld';

/**
 * updatePipeline guarded in the update, for a filter that names the _id alone (see writes.ts):
 * every field it sets or removes is a `$cond` on the stored document still holding `sequence`,
 * so where another writer moved it on the document stays exactly as it was. `newsTimeStays`: the
 * write leaves every time as it is (plainUpdate says it), so the news time is not recomputed.
 */
export function guardedUpdatePipeline(
  sequence: number,
  changed: Document,
  removed: string[],
  state: ShipmentsState,
  times: VisibleTimes,
  before: ShipmentsState,
  newsTimeStays: boolean,
): Document[] {
  const guard: Document = { $eq: ['$sequence', { $literal: sequence }] };
  const [first, ...rest] = updatePipeline(changed, removed, state, times, before);
  const set: Document = {};
  for (const [field, value] of Object.entries((first as { $set: Document }).$set)) set[field] = { $cond: [guard, value, `$${field}`] };
  const unset = rest.find((stage): stage is { $unset: string[] } => '$unset' in stage);
  for (const field of unset?.$unset ?? []) set[field] = { $cond: [guard, '$$REMOVE', `$${field}`] };
  // The news time, recomputed from what the document holds after the write, where the guard held:
  // the sequence can no longer tell (another writer may hold the very sequence written).
  if (newsTimeStays || !rest.includes(lastNewsAt)) return [{ $set: set }];
  return [{ $set: { ...set, [guardHeld]: guard } }, { $set: { lastNewsAt: { $cond: [`$${guardHeld}`, lastNewsAtExpression, '$lastNewsAt'] } } }, { $unset: guardHeld }];
}

// Plain update operators: see the top of this file.

/** The $set and $unset of one plain update, filled path by path. */
class PlainUpdate {
  readonly set: Document = {};
  readonly unset: Document = {};
  /** A time of the document, or a package's shipmentDate, would change: only a pipeline says that. */
  touchesTimes = false;

  /** The fields of `next` that are not the very same values as in `previous`, those it lacks removed; `skip` left out. */
  fields(path: string, next: object, previous: object, skip?: string): void {
    const after = next as Document;
    const before = previous as Document;
    // for…in over plain objects (states and their parts): no arrays of entries made for every field.
    for (const field in after) {
      const value: unknown = after[field];
      if (field !== skip && value !== undefined && value !== before[field]) this.set[`${path}${field}`] = value;
    }
    for (const field in before) {
      if (field !== skip && before[field] !== undefined && after[field] === undefined) this.unset[`${path}${field}`] = '';
    }
  }

  /** A time the write leaves as it is: stored at this place, or none on something new. */
  keeps(source: TimeSource, location?: number, pkg?: number, isNew = false): boolean {
    const kept = source.from === 'stored' ? source.location === location && source.package === pkg : source.from === 'none' && isNew;
    if (!kept) this.touchesTimes = true;
    return kept;
  }

  build(): Document | undefined {
    if (this.touchesTimes) return undefined;
    const update: Document = {};
    if (Object.keys(this.set).length > 0) update.$set = this.set;
    if (Object.keys(this.unset).length > 0) update.$unset = this.unset;
    return update;
  }
}

/**
 * The locations of `after` written over those of `before` the stored document holds, when every
 * time stays as it is and every location where it was (the arrays are sorted by id: one added at
 * the end, an address or destination type changed in place): each change is then a path of its
 * own. false when a location is removed or moves, or a package changes.
 */
function writeLocations(update: PlainUpdate, before: ShipmentsState, after: ShipmentsState, times: VisibleTimes): boolean {
  if (after.locations.length < before.locations.length) return false;
  for (const [i, location] of after.locations.entries()) {
    const previous: LocationState | undefined = before.locations[i];
    const { completeChangedAt, packages, references } = times.locations[i]!;
    const path = `locations.${i}.`;
    if (previous === undefined) {
      // A new location, its fields one by one, as a whole element would be: with no package (a
      // package is made visible, a time) and its flag clear.
      if (location.packages.length > 0 || !update.keeps(completeChangedAt, undefined, undefined, true)) return false;
      update.fields(path, location, {});
      continue;
    }
    if (previous.locationId !== location.locationId || previous.packages !== location.packages) return false;
    const keepsAll = (sources: TimeSource[]) => sources.every((source, j) => update.keeps(source, i, j));
    if (!update.keeps(completeChangedAt, i) || !keepsAll(packages) || !keepsAll(references)) return false;
    update.fields(path, location, previous, 'packages');
  }
  return true;
}

/** The sales order's own times as stored (or none on a new one), and the purchase orders it left too. */
const keepsTopLevelTimes = (update: PlainUpdate, times: VisibleTimes, isNew: boolean) =>
  times.left === undefined && topLevelTimes.every((field) => update.keeps(times[field], undefined, undefined, isNew));

/**
 * A new document without locations and without a time, as a plain upsert whose filter is its _id
 * alone: the state in $setOnInsert, applied only where no document exists (as the insert pipeline
 * does). undefined otherwise, for the pipeline.
 */
export function plainInsert(state: ShipmentsState, times: VisibleTimes): Document | undefined {
  if (state.locations.length > 0 || !keepsTopLevelTimes(new PlainUpdate(), times, true)) return undefined;
  return { $setOnInsert: { ...state } };
}

/**
 * The update updatePipeline makes, in plain operators, of a stored document holding `before`
 * (the write's guard holds it to that), for a write that leaves every time as it is: the changed
 * and removed fields, the locations path by path; the news time stays too. undefined otherwise.
 */
export function plainUpdate(before: ShipmentsState, after: ShipmentsState, changed: Document, removed: string[], times: VisibleTimes): Document | undefined {
  const update = new PlainUpdate();
  if (!keepsTopLevelTimes(update, times, false)) return undefined;
  update.fields('', changed, {}, 'locations');
  for (const field of removed) update.unset[field] = '';
  if (times.rewritesLocations && !writeLocations(update, before, after, times)) return undefined;
  return update.build();
}
