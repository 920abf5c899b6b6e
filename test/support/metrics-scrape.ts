/** The value of one series in a Prometheus text scrape (`name{labels}` as written), 0 when absent. */
export function sample(scrape: string, series: string): number {
  const line = scrape.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}
