// Small SVG charts for the bench results, written by hand: lines over a logarithmic x axis, and
// horizontal bars. Enough for a README; no chart library needed for two shapes.

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const palette = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf'];

export interface Series {
  name: string;
  points: { x: number; y: number }[];
}

/** Lines over a log10 x axis and a log10 y axis (both span decades here). */
export function lineChart(title: string, xLabel: string, yLabel: string, series: Series[]): string {
  const width = 720;
  const height = 420;
  const margin = { left: 70, right: 190, top: 40, bottom: 50 };
  const xs = series.flatMap((s) => s.points.map((p) => p.x));
  const ys = series.flatMap((s) => s.points.map((p) => Math.max(p.y, 0.01)));
  const [x0, x1] = [Math.log10(Math.min(...xs)), Math.log10(Math.max(...xs))];
  const [y0, y1] = [Math.floor(Math.log10(Math.min(...ys))), Math.ceil(Math.log10(Math.max(...ys)))];
  const px = (x: number) => margin.left + ((Math.log10(x) - x0) / Math.max(x1 - x0, 1e-9)) * (width - margin.left - margin.right);
  const py = (y: number) => height - margin.bottom - ((Math.log10(Math.max(y, 0.01)) - y0) / Math.max(y1 - y0, 1e-9)) * (height - margin.top - margin.bottom);
  const parts: string[] = [];
  for (let d = y0; d <= y1; d++) {
    const y = py(10 ** d);
    parts.push(`<line x1="${margin.left}" x2="${width - margin.right}" y1="${y}" y2="${y}" stroke="#ddd"/>`);
    parts.push(`<text x="${margin.left - 6}" y="${y + 4}" text-anchor="end">${10 ** d >= 1 ? 10 ** d : (10 ** d).toFixed(-d)}</text>`);
  }
  for (const x of [...new Set(xs)].sort((a, b) => a - b)) {
    parts.push(`<line x1="${px(x)}" x2="${px(x)}" y1="${margin.top}" y2="${height - margin.bottom}" stroke="#eee"/>`);
    parts.push(`<text x="${px(x)}" y="${height - margin.bottom + 18}" text-anchor="middle">${x.toLocaleString('en-US')}</text>`);
  }
  series.forEach((s, i) => {
    const color = palette[i % palette.length];
    const path = s.points.map((p, j) => `${j === 0 ? 'M' : 'L'}${px(p.x).toFixed(1)},${py(p.y).toFixed(1)}`).join(' ');
    parts.push(`<path d="${path}" fill="none" stroke="${color}" stroke-width="2"/>`);
    for (const p of s.points) parts.push(`<circle cx="${px(p.x).toFixed(1)}" cy="${py(p.y).toFixed(1)}" r="3" fill="${color}"/>`);
    const ly = margin.top + 10 + i * 18;
    parts.push(`<line x1="${width - margin.right + 12}" x2="${width - margin.right + 32}" y1="${ly}" y2="${ly}" stroke="${color}" stroke-width="2"/>`);
    parts.push(`<text x="${width - margin.right + 38}" y="${ly + 4}">${escape(s.name)}</text>`);
  });
  parts.push(`<text x="${width / 2 - 60}" y="${height - 10}" text-anchor="middle">${escape(xLabel)}</text>`);
  parts.push(`<text transform="translate(16 ${height / 2}) rotate(-90)" text-anchor="middle">${escape(yLabel)}</text>`);
  return svg(width, height, title, parts);
}

/** Horizontal bars, one per label, with the value written beside each. */
export function barChart(title: string, unit: string, bars: { label: string; value: number }[]): string {
  const width = 720;
  const rowHeight = 28;
  const margin = { left: 230, right: 110, top: 40, bottom: 20 };
  const height = margin.top + margin.bottom + bars.length * rowHeight;
  const max = Math.max(...bars.map((b) => b.value), 1e-9);
  const parts = bars.map((b, i) => {
    const y = margin.top + i * rowHeight;
    const w = (b.value / max) * (width - margin.left - margin.right);
    return (
      `<text x="${margin.left - 8}" y="${y + 17}" text-anchor="end">${escape(b.label)}</text>` +
      `<rect x="${margin.left}" y="${y + 4}" width="${w.toFixed(1)}" height="${rowHeight - 8}" fill="${palette[i % palette.length]}"/>` +
      `<text x="${margin.left + w + 6}" y="${y + 17}">${b.value.toLocaleString('en-US', { maximumFractionDigits: 1 })} ${escape(unit)}</text>`
    );
  });
  return svg(width, height, title, parts);
}

function svg(width: number, height: number, title: string, parts: string[]): string {
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">\n` +
    `<rect width="100%" height="100%" fill="white"/>\n<text x="${width / 2}" y="22" text-anchor="middle" font-size="15" font-weight="bold">${escape(title)}</text>\n` +
    `${parts.join('\n')}\n</svg>\n`
  );
}
