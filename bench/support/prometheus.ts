// Reading a service's Prometheus text (/metrics): counters summed over labels, and quantiles of a
// histogram between two scrapes, from the deltas of its cumulative buckets (as histogram_quantile
// does: linear within the bucket the rank falls in).

export type Scrape = Map<string, number>;

export async function scrape(url: string, timeoutMs = 5_000): Promise<Scrape> {
  const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  const samples: Scrape = new Map();
  for (const line of (await response.text()).split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const space = line.lastIndexOf(' ');
    samples.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return samples;
}

/** A counter's value summed over all its label sets. */
export function counterSum(samples: Scrape, name: string): number {
  let sum = 0;
  for (const [series, value] of samples) if (series === name || series.startsWith(`${name}{`)) sum += value;
  return sum;
}

/** The histogram's cumulative buckets (le → count), summed over other labels. */
function buckets(samples: Scrape, name: string): Map<number, number> {
  const result = new Map<number, number>();
  for (const [series, value] of samples) {
    if (!series.startsWith(`${name}_bucket{`)) continue;
    const le = /le="([^"]+)"/.exec(series)?.[1];
    if (le === undefined) continue;
    const bound = le === '+Inf' ? Infinity : Number(le);
    result.set(bound, (result.get(bound) ?? 0) + value);
  }
  return result;
}

export interface HistogramDelta {
  count: number;
  /** quantile(q): the value, or, when the rank falls above the highest finite bound, that bound with `above` set. */
  quantile(q: number): { value: number; above: boolean };
}

export function histogramDelta(before: Scrape, after: Scrape, name: string): HistogramDelta {
  const start = buckets(before, name);
  const end = buckets(after, name);
  const bounds = [...end.keys()].sort((a, b) => a - b);
  const cumulative = bounds.map((bound) => ({ bound, count: (end.get(bound) ?? 0) - (start.get(bound) ?? 0) }));
  const count = cumulative.at(-1)?.count ?? 0;
  return {
    count,
    quantile(q) {
      if (count === 0) return { value: NaN, above: false };
      const rank = q * count;
      let lowerBound = 0;
      let lowerCount = 0;
      for (const { bound, count: upTo } of cumulative) {
        if (upTo >= rank) {
          if (bound === Infinity) return { value: lowerBound, above: true };
          const inBucket = upTo - lowerCount;
          return { value: inBucket === 0 ? bound : lowerBound + ((bound - lowerBound) * (rank - lowerCount)) / inBucket, above: false };
        }
        lowerBound = bound;
        lowerCount = upTo;
      }
      return { value: lowerBound, above: true };
    },
  };
}
