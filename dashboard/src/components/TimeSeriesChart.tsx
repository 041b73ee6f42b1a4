import { useEffect, useMemo, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

/**
 * A line chart over time (uPlot, canvas). Each series is its own list of points `[x, y]` with x in epoch
 * milliseconds (or a step number with `xKind: 'number'`); the series are merged onto one x axis.
 *
 * - `xRange` fixes the x axis to a chosen window (a "Last 7 days" chart spans exactly those 7 days, whatever the
 *   data covers); without it the axis spans the data.
 * - `step` (the bucket size, in x units) with `xRange` lays every bucket of the window on the axis, so a bucket
 *   without a value is a gap: lines never join points across an empty bucket.
 * - A point with no neighbour (a single bucket, or one between gaps) is drawn as a dot, so it is never invisible.
 * - Colours come from the stylesheet's variables (`--chart-axis`, `--chart-grid`, `--series-N`; a series colour may
 *   be `var(--name)`), so a dark theme restyles the chart.
 *
 * The element carries, for tests: `data-points` (non-null points in all), `data-series`, `data-x-min`/`data-x-max`
 * (the drawn x scale, in the points' units) and `data-colors` (each series' resolved colour); and a text summary
 * for screen readers.
 */
export interface TimeSeries {
  label: string;
  points: readonly (readonly [number, number | null])[];
  color?: string;
  /** Draw dashed (e.g. a raw curve under its smoothed one). */
  dashed?: boolean;
}

/** Tick spacings for whole-number axes (uPlot picks the smallest that fits). */
const INTEGER_INCREMENTS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000];

const PALETTE = ['var(--series-1)', 'var(--series-2)', 'var(--series-3)', 'var(--series-4)', 'var(--series-5)', 'var(--series-6)', 'var(--series-7)'];
/** Used where the stylesheet does not define a variable. */
const FALLBACK: Record<string, string> = {
  '--chart-axis': '#5b6472',
  '--chart-grid': '#eef0f3',
  '--series-1': '#3b6cf0',
  '--series-2': '#b54708',
  '--series-3': '#2f9e44',
  '--series-4': '#ae3ec9',
  '--series-5': '#0c8599',
  '--series-6': '#e03131',
  '--series-7': '#f59f00',
};
/** More grid cells than this and the buckets of a window are not laid out one by one (the data's x are used). */
const MAX_GRID = 20_000;
/** Series with at most this many points show every point as a dot; denser ones only their isolated points. */
const DOTS_UP_TO = 24;

function resolveColor(element: Element, color: string): string {
  const variable = /^var\((--[\w-]+)\)$/.exec(color.trim())?.[1];
  if (!variable) return color;
  return getComputedStyle(element).getPropertyValue(variable).trim() || FALLBACK[variable] || '#888888';
}

export function TimeSeriesChart({
  series,
  title,
  height = 240,
  xKind = 'time',
  xLabel,
  yLabel,
  integerX = false,
  xRange,
  step,
  yRange,
}: {
  series: readonly TimeSeries[];
  title: string;
  height?: number;
  xKind?: 'time' | 'number';
  /** The x axis title (drawn under the axis). */
  xLabel?: string;
  /** The y axis title. */
  yLabel?: string;
  /** With `xKind: 'number'`: ticks only at whole numbers (steps, epochs). */
  integerX?: boolean;
  /** The x axis bounds [from, to], in the points' units. */
  xRange?: readonly [number, number];
  /** The bucket size in the points' units: with `xRange`, every bucket of the window is on the axis. */
  step?: number;
  /** The y axis bounds, when they are known (a rating scale). */
  yRange?: readonly [number, number];
}) {
  const container = useRef<HTMLDivElement>(null);
  const figure = useRef<HTMLElement>(null);
  const pointCount = series.reduce((total, item) => total + item.points.filter(([, y]) => y !== null).length, 0);
  const toX = (x: number) => (xKind === 'time' ? x / 1000 : x);
  const [rangeFrom, rangeTo] = xRange ?? [null, null];

  const data = useMemo((): uPlot.AlignedData => {
    const seen = new Set(series.flatMap((item) => item.points.map(([x]) => x)));
    if (rangeFrom !== null && rangeTo !== null && step && step > 0 && (rangeTo - rangeFrom) / step <= MAX_GRID) {
      // Every bucket of the window, so a missing one is a null between its neighbours (a gap).
      for (let x = Math.ceil(rangeFrom / step) * step; x < rangeTo; x += step) seen.add(x);
    }
    const xs = [...seen].sort((a, b) => a - b);
    const index = new Map(xs.map((x, i) => [x, i]));
    const columns = series.map((item) => {
      const column: (number | null)[] = new Array<number | null>(xs.length).fill(null);
      for (const [x, y] of item.points) column[index.get(x)!] = y;
      return column;
    });
    return [xs.map(toX), ...columns] as uPlot.AlignedData;
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [series, xKind, rangeFrom, rangeTo, step]);

  useEffect(() => {
    const element = container.current;
    if (!element) return;
    const axis = resolveColor(element, 'var(--chart-axis)');
    const grid = resolveColor(element, 'var(--chart-grid)');
    const colors = series.map((item, i) => resolveColor(element, item.color ?? PALETTE[i % PALETTE.length]!));
    const isolated = (values: readonly (number | null | undefined)[]) => {
      const shown: number[] = [];
      values.forEach((value, i) => {
        if (value === null || value === undefined) return;
        const before = i > 0 ? values[i - 1] : null;
        const after = i < values.length - 1 ? values[i + 1] : null;
        if ((before === null || before === undefined) && (after === null || after === undefined)) shown.push(i);
      });
      return shown;
    };
    const options: uPlot.Options = {
      width: Math.max(200, element.clientWidth),
      height,
      scales: {
        x: {
          time: xKind === 'time',
          ...(rangeFrom !== null && rangeTo !== null ? { range: (): uPlot.Range.MinMax => [toX(rangeFrom), toX(rangeTo)] } : {}),
        },
        ...(yRange ? { y: { range: (): uPlot.Range.MinMax => [yRange[0], yRange[1]] } } : {}),
      },
      axes: [
        { stroke: axis, grid: { stroke: grid }, ticks: { stroke: grid }, label: xLabel, ...(integerX && xKind === 'number' ? { incrs: INTEGER_INCREMENTS } : {}) },
        { stroke: axis, grid: { stroke: grid }, ticks: { stroke: grid }, label: yLabel },
      ],
      series: [
        { label: xKind === 'time' ? 'Time' : (xLabel ?? 'Step') },
        ...series.map((item, i) => {
          const count = item.points.filter(([, y]) => y !== null).length;
          return {
            label: item.label,
            stroke: colors[i],
            width: 2,
            dash: item.dashed ? [4, 4] : undefined,
            spanGaps: false,
            points: {
              show: true,
              size: 6,
              fill: colors[i],
              // Few points: every one; many: only those no line reaches (a lone bucket between gaps).
              filter: (plot: uPlot, seriesIndex: number) => (count <= DOTS_UP_TO ? null : isolated(plot.data[seriesIndex] as (number | null)[])),
            },
          } satisfies uPlot.Series;
        }),
      ],
      legend: { show: series.length > 1, live: true },
      hooks: {
        draw: [
          (plot) => {
            const target = figure.current;
            if (!target) return;
            const scale = (value: number | null | undefined) => (value === null || value === undefined ? '' : String(xKind === 'time' ? Math.round(value * 1000) : value));
            target.dataset.xMin = scale(plot.scales.x?.min);
            target.dataset.xMax = scale(plot.scales.x?.max);
          },
        ],
      },
    };
    if (figure.current) figure.current.dataset.colors = colors.join(' ');
    const plot = new uPlot(options, data, element);
    const observer = new ResizeObserver(() => plot.setSize({ width: Math.max(200, element.clientWidth), height }));
    observer.observe(element);
    return () => {
      observer.disconnect();
      plot.destroy();
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [data, series, height, xKind, xLabel, yLabel, integerX, rangeFrom, rangeTo, yRange?.[0], yRange?.[1]]);

  return (
    <figure ref={figure} className="chart" data-testid="time-series-chart" data-points={pointCount} data-series={series.length}>
      <figcaption className="chart-title">{title}</figcaption>
      <div
        ref={container}
        className="chart-canvas"
        role="img"
        aria-label={`${title}${yLabel ? ` (${yLabel}` : ''}${yLabel && xLabel ? ` by ${xLabel})` : yLabel ? ')' : ''}: ${series.map((item) => `${item.label}, ${item.points.filter(([, y]) => y !== null).length} points`).join('; ')}`}
      />
    </figure>
  );
}
