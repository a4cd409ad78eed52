import 'uplot/dist/uPlot.min.css';

import { useEffect, useRef } from 'react';
import uPlot from 'uplot';

import { chartTheme, useTheme } from './theme';

/**
 * Calls per bucket, one line per group, drawn by uPlot on a canvas. The same numbers are in the
 * table under it, which is what screen readers read (the canvas is hidden from them).
 */
export function UsageChart({
  buckets,
  series,
  title,
}: {
  buckets: number[];
  series: { label: string; values: (number | null)[] }[];
  title: string;
}) {
  const host = useRef<HTMLDivElement>(null);
  // Drawn again when the theme changes: a canvas does not follow CSS variables by itself.
  const { dark } = useTheme();
  useEffect(() => {
    if (!host.current || buckets.length === 0) return;
    const width = Math.max(280, host.current.clientWidth);
    const { axis, colours, background } = chartTheme();
    const chart = new uPlot(
      {
        title,
        width,
        height: 260,
        scales: { x: { time: true } },
        axes: [axis, { ...axis, label: 'calls' }],
        series: [
          {},
          ...series.map((s, i) => ({
            label: s.label,
            stroke: colours[i % colours.length],
            width: 2,
            points: { show: buckets.length < 60, fill: background },
          })),
        ],
      },
      [buckets, ...series.map((s) => s.values)],
      host.current,
    );
    return () => chart.destroy();
  }, [buckets, series, title, dark]);
  return <div className="chart" ref={host} aria-hidden="true" />;
}
