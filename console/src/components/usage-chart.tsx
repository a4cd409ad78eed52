import 'uplot/dist/uPlot.min.css';

import { useEffect, useRef } from 'react';
import uPlot from 'uplot';

import { bucketLabel, tickLabel } from './bucket-labels';
import { chartTheme, useTheme } from './theme';

const DAY = 86_400;

/** USD ticks with one number of decimals, as many as the smallest step needs (2 to 6). */
function usdTicks(splits: number[]): (value: number) => string {
  const step = splits.length > 1 ? Math.abs(splits[1] - splits[0]) : Math.abs(splits[0] ?? 1);
  const decimals = Math.min(6, Math.max(2, step > 0 ? Math.ceil(-Math.log10(step)) : 2));
  return (value) => `$${value.toFixed(decimals)}`;
}

export interface ChartSeries {
  label: string;
  values: number[];
}

/**
 * Per-bucket figures as bars stacked per series (calls, or USD), drawn by uPlot on a canvas: one bar
 * per bucket, its ticks the buckets themselves (days for day buckets, never hours), the legend the
 * hovered bucket's date and each series' value, or the range and each series' total when nothing
 * is hovered. The same numbers are in the table under it, which is what screen readers read (the
 * canvas is hidden from them).
 */
export function UsageChart({
  buckets,
  bucket,
  series,
  title,
  unit,
}: {
  buckets: number[];
  bucket: 'hour' | 'day';
  series: ChartSeries[];
  title: string;
  unit: 'calls' | 'USD';
}) {
  const host = useRef<HTMLDivElement>(null);
  // Drawn again when the theme changes: a canvas does not follow CSS variables by itself.
  const { dark } = useTheme();
  useEffect(() => {
    const element = host.current;
    if (!element || buckets.length === 0) return;
    const step = bucket === 'hour' ? 3600 : DAY;
    const format = (value: number) =>
      unit === 'USD' ? `$${value.toFixed(value !== 0 && Math.abs(value) < 0.01 ? 6 : 2)}` : String(Math.round(value));
    // Stacked: series i is drawn up to the sum of itself and the series after it, the first (the
    // tallest) first, so each one's own part shows above the next; the legend says its own value.
    const stacked = series.map((_, i) => buckets.map((_b, k) => series.slice(i).reduce((sum, s) => sum + (s.values[k] ?? 0), 0)));
    const totals = series.map((s) => s.values.reduce((sum, v) => sum + v, 0));
    const range = `${tickLabel(buckets[0], bucket)} – ${tickLabel(buckets[buckets.length - 1], bucket)}`;
    // Axis text, grid and series colours from the theme in effect (docs/console.md, "Dark mode").
    const { axis, colours } = chartTheme();
    const bars = uPlot.paths.bars!({ size: [0.7, 48], gap: 1 });
    const width = () => Math.max(300, element.clientWidth);
    const chart = new uPlot(
      {
        title,
        width: width(),
        height: 260,
        cursor: { drag: { x: false, y: false }, points: { show: false } },
        scales: {
          x: { time: false, range: () => [buckets[0] - step / 2, buckets[buckets.length - 1] + step / 2] },
          y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] },
        },
        axes: [
          {
            ...axis,
            grid: { show: false },
            // One tick per bucket, fewer when they would crowd (about 64 px each), labelled as a bucket.
            splits: (u) => {
              const every = Math.max(1, Math.ceil((buckets.length * 64) / Math.max(1, u.bbox.width / devicePixelRatio)));
              return buckets.filter((_b, k) => (buckets.length - 1 - k) % every === 0);
            },
            values: (_u, splits) => splits.map((start) => tickLabel(start, bucket)),
          },
          {
            ...axis,
            label: unit,
            // Room for the longest tick label (about 7 px a character) and the axis label beside it.
            size: (_u, values) => Math.max(48, ...(values ?? []).map((value) => String(value).length * 7 + 30)),
            values: (_u, splits) => splits.map(unit === 'USD' ? usdTicks(splits) : format),
            ...(unit === 'calls'
              ? { incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 50_000, 100_000, 1_000_000] }
              : {}),
          },
        ],
        series: [
          {
            label: bucket === 'day' ? 'Day (UTC)' : 'Hour (UTC)',
            value: (_u, start, _si, idx) => (idx === null || start === null ? range : bucketLabel(start, bucket)),
          },
          ...series.map((s, i) => ({
            label: s.label,
            stroke: colours[i % colours.length],
            fill: colours[i % colours.length],
            width: 0,
            paths: bars,
            points: { show: false },
            value: (_u: uPlot, _v: number | null, _si: number, idx: number | null) =>
              idx === null ? `${format(totals[i])} in all` : format(s.values[idx] ?? 0),
          })),
        ],
      },
      [buckets, ...stacked],
      element,
    );
    // The browser test reads what was drawn (the axis's ticks, the bars' pixels) from the chart itself.
    Object.defineProperty(element, 'uplot', { value: chart, configurable: true });
    const resized = new ResizeObserver(() => chart.setSize({ width: width(), height: 260 }));
    resized.observe(element);
    return () => {
      resized.disconnect();
      chart.destroy();
    };
  }, [buckets, bucket, series, title, unit, dark]);
  return <div className="chart" ref={host} aria-hidden="true" data-unit={unit} />;
}
