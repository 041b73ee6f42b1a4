import { useEffect, useMemo, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

/**
 * A line chart over time (uPlot, canvas). Each series is its own list of points `[x, y]` with x in epoch
 * milliseconds (or a step number with `xKind: 'number'`); the series are merged onto one x axis. The element
 * carries `data-points` (how many points in all) for tests and a text summary for screen readers.
 */
export interface TimeSeries {
  label: string;
  points: readonly (readonly [number, number | null])[];
  color?: string;
}

/** Tick spacings for whole-number axes (uPlot picks the smallest that fits). */
const INTEGER_INCREMENTS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000];

const PALETTE = ['#3b6cf0', '#e8590c', '#2f9e44', '#ae3ec9', '#f59f00', '#0c8599', '#e03131'];

export function TimeSeriesChart({
  series,
  title,
  height = 240,
  xKind = 'time',
  yLabel,
  integerX = false,
}: {
  series: readonly TimeSeries[];
  title: string;
  height?: number;
  xKind?: 'time' | 'number';
  yLabel?: string;
  /** With `xKind: 'number'`: ticks only at whole numbers (steps, epochs). */
  integerX?: boolean;
}) {
  const container = useRef<HTMLDivElement>(null);
  const pointCount = series.reduce((total, item) => total + item.points.length, 0);

  const data = useMemo((): uPlot.AlignedData => {
    const xs = [...new Set(series.flatMap((item) => item.points.map(([x]) => (xKind === 'time' ? x / 1000 : x))))].sort((a, b) => a - b);
    const index = new Map(xs.map((x, i) => [x, i]));
    const columns = series.map((item) => {
      const column: (number | null)[] = new Array<number | null>(xs.length).fill(null);
      for (const [x, y] of item.points) column[index.get(xKind === 'time' ? x / 1000 : x)!] = y;
      return column;
    });
    return [xs, ...columns] as uPlot.AlignedData;
  }, [series, xKind]);

  useEffect(() => {
    const element = container.current;
    if (!element) return;
    const options: uPlot.Options = {
      width: Math.max(200, element.clientWidth),
      height,
      scales: { x: { time: xKind === 'time' } },
      axes: [{ stroke: '#5b6472', grid: { stroke: '#eef0f3' }, ...(integerX && xKind === 'number' ? { incrs: INTEGER_INCREMENTS } : {}) }, { stroke: '#5b6472', grid: { stroke: '#eef0f3' }, label: yLabel }],
      series: [
        { label: xKind === 'time' ? 'Time' : 'Step' },
        ...series.map((item, i) => ({ label: item.label, stroke: item.color ?? PALETTE[i % PALETTE.length], width: 2, spanGaps: true, points: { size: 5 } })),
      ],
      legend: { show: series.length > 1, live: true },
    };
    const plot = new uPlot(options, data, element);
    const observer = new ResizeObserver(() => plot.setSize({ width: Math.max(200, element.clientWidth), height }));
    observer.observe(element);
    return () => {
      observer.disconnect();
      plot.destroy();
    };
  }, [data, series, height, xKind, yLabel, integerX]);

  return (
    <figure className="chart" data-testid="time-series-chart" data-points={pointCount} data-series={series.length}>
      <figcaption className="chart-title">{title}</figcaption>
      <div ref={container} className="chart-canvas" role="img" aria-label={`${title}: ${series.map((item) => `${item.label}, ${item.points.length} points`).join('; ')}`} />
    </figure>
  );
}
