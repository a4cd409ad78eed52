import 'uplot/dist/uPlot.min.css';

import { useEffect, useRef } from 'react';
import uPlot from 'uplot';

const COLOURS = ['#1f4fd1', '#b3261e', '#1b6b34', '#7a2e9c', '#b35c00', '#00707a', '#5b5f6b', '#a3175d'];

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
  useEffect(() => {
    if (!host.current || buckets.length === 0) return;
    const width = Math.max(320, host.current.clientWidth);
    const chart = new uPlot(
      {
        title,
        width,
        height: 260,
        scales: { x: { time: true } },
        axes: [{}, { label: 'calls' }],
        series: [
          {},
          ...series.map((s, i) => ({
            label: s.label,
            stroke: COLOURS[i % COLOURS.length],
            width: 2,
            points: { show: buckets.length < 60 },
          })),
        ],
      },
      [buckets, ...series.map((s) => s.values)],
      host.current,
    );
    return () => chart.destroy();
  }, [buckets, series, title]);
  return <div className="chart" ref={host} aria-hidden="true" />;
}
