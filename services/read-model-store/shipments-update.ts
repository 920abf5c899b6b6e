import type { Document } from 'mongodb';
import type { LocationState, ShipmentsState } from '../../projections/state.js';
import type { TimeSource, VisibleTimes } from './visible-times.js';

// Shipments documents are written with aggregation-pipeline updates: only there can the server's
// clock ($$NOW) be put inside the packages and locations of a replaced array, and can a time be
// kept from the stored document (the write is guarded on the state it holds, so the stored
// location i and package j are those of that state). Every value of the state goes in as a
// $literal, so that no text of the ERP (an address starting with "$") is read as an expression.

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
