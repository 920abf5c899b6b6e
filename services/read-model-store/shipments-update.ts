import type { Document } from 'mongodb';
import type { LocationState, PackageState, ShipmentsState } from '../../projections/state.js';
import type { TimeSource, VisibleTimes } from './visible-times.js';

// Shipments documents are written with aggregation-pipeline updates where only there can the
// write be said: only there can the server's clock ($$NOW) be put inside the packages and
// locations of a replaced array, a time be kept from the stored document, and the latest news time
// be the latest of every time the document holds. Every value of the state goes in as a $literal,
// so that no text of the ERP (an address starting with "$") is read as an expression.
//
// A pipeline costs the server (MongoDB 6.0) about twice what the same change in plain update
// operators does: it parses every expression of every update. Most writes only add to what the
// stored document holds (a package shipped, a location recorded or completed), and those are said
// in plain operators instead (plainInsert, plainUpdate), stamping with $currentDate, which gives
// every field of one update the same server time as $$NOW does. Each says the same document the
// pipeline would make, or declines and the pipeline is used.

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

function locationExpression(location: LocationState, times: VisibleTimes['locations'][number]): Document {
  const { packages, ...rest } = location;
  return {
    $mergeObjects: [
      { $literal: rest },
      {
        packages: packages.map((pkg, j) => ({ $mergeObjects: [{ $literal: pkg }, { visibleAt: nestedTime(times.packages[j]!, 'visibleAt') }] })),
        completeChangedAt: nestedTime(times.completeChangedAt, 'completeChangedAt'),
      },
    ],
  };
}

const locationsExpression = (state: ShipmentsState, times: VisibleTimes) => state.locations.map((l, i) => locationExpression(l, times.locations[i]!));

/** The values of a field of every package, flat. */
const ofEveryPackage = (field: string) => ({ $reduce: { input: `$locations.packages.${field}`, initialValue: [], in: { $concatArrays: ['$$value', '$$this'] } } });

/** The document's latest news time (see ShipmentsDocument.lastNewsAt), recomputed from what it holds after the write. */
const lastNewsAt: Document = {
  $set: {
    lastNewsAt: {
      $ifNull: [
        {
          $max: [
            { $max: ofEveryPackage('shipmentDate') },
            { $max: ofEveryPackage('visibleAt') },
            { $max: '$locations.completeChangedAt' },
            // A purchase order's flag can change through these alone (a sales order reopened by a
            // location with no package, or one coming under a complete purchase order).
            '$completeChangedAt',
            '$purchaseOrderSetAt',
          ],
        },
        '$$REMOVE',
      ],
    },
  },
};

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

const literals = (fields: Document) => Object.fromEntries(Object.entries(fields).map(([name, value]) => [name, { $literal: value }]));

/**
 * A new document, for an upsert whose filter is its _id alone: it takes effect only where no
 * document exists (the pipeline keeps one that another writer put there first, untouched).
 */
export function insertPipeline(id: string, state: ShipmentsState, times: VisibleTimes): Document[] {
  const { locations: _, ...rest } = state;
  const created = { $mergeObjects: [{ $literal: { _id: id, ...rest } }, { locations: locationsExpression(state, times), ...topLevelSets(times) }] };
  return [{ $replaceWith: { $cond: [{ $eq: [{ $type: '$sequence' }, 'missing'] }, created, '$$ROOT'] } }, lastNewsAt];
}

/** An update of a stored document: the fields that changed, those removed, and the times. */
export function updatePipeline(changed: Document, removed: string[], state: ShipmentsState, times: VisibleTimes): Document[] {
  const { locations: _, ...changedValues } = changed;
  const set: Document = { ...literals(changedValues), ...topLevelSets(times) };
  if (times.rewritesLocations) set.locations = locationsExpression(state, times);
  const unset = [...removed, ...topLevelTimes.filter((field) => times[field].from === 'none')];
  return [{ $set: set }, ...(unset.length > 0 ? [{ $unset: unset }] : []), lastNewsAt];
}

// Plain update operators: see the top of this file.

/**
 * A time of the ERP's (a shipmentDate, or a time carried over from the live version) at or before
 * this long before the projector's clock is in the database server's past too, clocks being set
 * within it of each other: where a write stamps the server's time, that time is then the latest
 * the document holds (the times the server stamped earlier are not after it either). Later ones,
 * as a package dated ahead, are for the pipeline's $max.
 */
export const clockAllowanceMs = 60 * 60_000;

/** The $set, $unset and $currentDate of one plain update, filled path by path. */
class PlainUpdate {
  readonly set: Document = {};
  readonly unset: Document = {};
  readonly stamp: Document = {};
  /** A time of the document, or a package's shipmentDate, is set or removed other than by a stamp. */
  touchesTimes = false;
  /** The latest of the ERP's and carried-over times the document holds after the write (see clockAllowanceMs). */
  latestKnown = -Infinity;

  /** A time from its source. A stored one is left where it is (the caller checks it is there); nothing is removed from a new element. */
  time(path: string, source: TimeSource, isNew = false): void {
    if (source.from === 'now') this.stamp[path] = true;
    else if (source.from === 'value') {
      this.set[path] = source.at;
      this.known(source.at);
      this.touchesTimes = true;
    } else if (source.from === 'none' && !isNew) {
      this.unset[path] = '';
      this.touchesTimes = true;
    }
  }

  known(at: Date): void {
    this.latestKnown = Math.max(this.latestKnown, at.getTime());
  }

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

  get stamps(): boolean {
    return Object.keys(this.stamp).length > 0;
  }

  /**
   * The update with its latest news time, or undefined where it cannot be said this way. A write
   * that stamps the server's time makes that time the latest news when every time known here lies
   * in the server's past; one that stamps nothing and sets no time leaves it as it is (nothing it
   * is the latest of changed: a package that changes is made visible anew, a stamp).
   */
  build(notAfter: number): Document | undefined {
    if (this.stamps) {
      if (this.latestKnown > notAfter) return undefined;
      this.stamp.lastNewsAt = true;
    } else if (this.touchesTimes) return undefined;
    const update: Document = {};
    if (Object.keys(this.set).length > 0) update.$set = this.set;
    if (Object.keys(this.unset).length > 0) update.$unset = this.unset;
    if (this.stamps) update.$currentDate = this.stamp;
    return update;
  }
}

/** Whether a source leaves the time where the plain update leaves it: a stored time at this very place, or another source. */
const keptAt = (source: TimeSource, location: number, pkg?: number) => source.from !== 'stored' || (source.location === location && source.package === pkg);

/**
 * The locations of `after` written over those of `before` the stored document holds, when every
 * location and package stays where it was (the arrays are sorted by id: an id added at the end, an
 * address, flag or package changed in place): each change is then a path of its own. false when
 * something is removed or moves (a package voided, an id below the last one), or a new location
 * comes with packages (a new element is written field by field, as a whole one would conflict
 * with a time stamped inside it, and a package list being made cannot be written into).
 */
function writeLocations(update: PlainUpdate, before: ShipmentsState, after: ShipmentsState, times: VisibleTimes): boolean {
  if (after.locations.length < before.locations.length) return false;
  for (const [i, location] of after.locations.entries()) {
    const previous: LocationState | undefined = before.locations[i];
    const { completeChangedAt, packages } = times.locations[i]!;
    const path = `locations.${i}.`;
    if (previous === undefined) {
      if (location.packages.length > 0 || completeChangedAt.from === 'stored') return false;
      update.fields(path, location, {});
      update.time(`${path}completeChangedAt`, completeChangedAt, true);
      continue;
    }
    if (previous.locationId !== location.locationId || location.packages.length < previous.packages.length || !keptAt(completeChangedAt, i)) return false;
    update.fields(path, location, previous, 'packages');
    update.time(`${path}completeChangedAt`, completeChangedAt);
    for (const [j, pkg] of location.packages.entries()) {
      const previousPackage: PackageState | undefined = previous.packages[j];
      const source = packages[j]!;
      if (source.from === 'stored') {
        // The very package stored there (visibleTimes keeps the time of a package as it was only).
        if (previousPackage === undefined || !keptAt(source, i, j)) return false;
        continue;
      }
      if (previousPackage !== undefined && previousPackage.packageId !== pkg.packageId) return false;
      // Its shipmentDate is new, or replaces another: a time the news time is the latest of.
      update.touchesTimes = true;
      const packagePath = `${path}packages.${j}.`;
      update.fields(packagePath, pkg, previousPackage ?? {});
      update.time(`${packagePath}visibleAt`, source, previousPackage === undefined);
    }
  }
  return true;
}

/** Every package's shipmentDate is a time the news time is the latest of. */
function knowShipmentDates(update: PlainUpdate, state: ShipmentsState): void {
  for (const location of state.locations) for (const pkg of location.packages) update.known(pkg.shipmentDate);
}

/**
 * A new document without locations, as a plain upsert whose filter is its _id alone: the state in
 * $setOnInsert and its first times stamped. Unlike the insert pipeline, where another writer got
 * there first the stamps move that document's times on (as a status insert's change time does: a
 * poller may see the sales order once more, never miss it); the write finds a document, is counted
 * as refused all the same, and the batch is read again. With locations, undefined: only the
 * pipeline can stamp inside them. `notAfter`: see clockAllowanceMs.
 */
export function plainInsert(state: ShipmentsState, times: VisibleTimes, notAfter: number): Document | undefined {
  if (state.locations.length > 0) return undefined;
  const update = new PlainUpdate();
  for (const field of topLevelTimes) update.time(field, times[field], true);
  if (update.stamps && update.latestKnown > notAfter) return undefined;
  const created: Document = { ...state, ...update.set };
  if (update.stamps) return { $setOnInsert: created, $currentDate: { ...update.stamp, lastNewsAt: true } };
  if (update.latestKnown > -Infinity) created.lastNewsAt = new Date(update.latestKnown);
  return { $setOnInsert: created };
}

/**
 * The update updatePipeline makes, in plain operators, of a stored document holding `before`
 * (the write's guard holds it to that): the changed and removed fields, the locations path by
 * path, each time from its source, the news time. undefined where only the pipeline can say it.
 * `notAfter`: see clockAllowanceMs.
 */
export function plainUpdate(before: ShipmentsState, after: ShipmentsState, changed: Document, removed: string[], times: VisibleTimes, notAfter: number): Document | undefined {
  const update = new PlainUpdate();
  update.fields('', changed, {}, 'locations');
  for (const field of removed) update.unset[field] = '';
  for (const field of topLevelTimes) update.time(field, times[field]);
  if (times.rewritesLocations && !writeLocations(update, before, after, times)) return undefined;
  knowShipmentDates(update, after);
  return update.build(notAfter);
}
