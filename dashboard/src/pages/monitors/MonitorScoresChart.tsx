import { useEffect, useMemo, useState } from 'react';
import { useQuery } from 'urql';
import { Empty, QueryState } from '../../components/States';
import { TimeSeriesChart, type TimeSeries } from '../../components/TimeSeriesChart';
import { MonitorScoresDocument } from '../../graphql/generated';

const WINDOWS = [
  { label: 'Last hour', seconds: 3600, bucketSeconds: 60, bucketLabel: 'minute' },
  { label: 'Last 24 hours', seconds: 86_400, bucketSeconds: 3600, bucketLabel: 'hour' },
  { label: 'Last 7 days', seconds: 7 * 86_400, bucketSeconds: 6 * 3600, bucketLabel: '6 hours' },
] as const;
/** How often the chart reads the scores again while the page is open. */
const REFRESH_MS = 15_000;

/**
 * The monitors' mean score per time bucket (their feedback's `_rating_`, which is the score), one line per monitor,
 * read again every few seconds so new scores appear as calls are scored. Monitors are told apart by their feedback's
 * scorer: the runnable ref names the monitor.
 */
export function MonitorScoresChart({
  entity,
  project,
  monitors,
  refreshToken,
}: {
  entity: string;
  project: string;
  monitors: readonly string[];
  /** Changes when the page did something that adds scores (a backfill): the chart reads them at once. */
  refreshToken: number;
}) {
  const [windowIndex, setWindowIndex] = useState(1);
  const [now, setNow] = useState(() => Date.now());
  const window = WINDOWS[windowIndex]!;
  // The window ends at the next bucket boundary, so a refresh only adds to the last bucket.
  const beforeMs = Math.ceil((now + 1) / (window.bucketSeconds * 1000)) * window.bucketSeconds * 1000;
  const afterMs = beforeMs - window.seconds * 1000;
  const monitorKey = monitors.join('\n');
  const variables = useMemo(
    () => ({ entity, project, input: { afterMs, beforeMs, timeBucketSeconds: window.bucketSeconds, monitorIds: [...monitors], groupBy: ['SCORER_ID' as const] } }),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [entity, project, afterMs, beforeMs, window.bucketSeconds, monitorKey],
  );
  const [result, reexecute] = useQuery({ query: MonitorScoresDocument, variables, pause: monitors.length === 0 });
  // Read again on a timer and when asked: the window moves with the clock, and within one bucket the variables stay
  // the same, so the query is re-run from the network rather than answered from the cache.
  useEffect(() => {
    const timer = setInterval(() => {
      setNow(Date.now());
      reexecute({ requestPolicy: 'network-only' });
    }, REFRESH_MS);
    return () => clearInterval(timer);
  }, [reexecute]);
  useEffect(() => {
    if (refreshToken > 0) reexecute({ requestPolicy: 'network-only' });
  }, [refreshToken, reexecute]);

  return (
    <section className="section card" aria-labelledby="monitor-scores-heading">
      <div className="card-header">
        <h2 id="monitor-scores-heading">Scores over time</h2>
        <div className="field monitor-scores-window">
          <label htmlFor="monitor-scores-window">Window</label>
          <select id="monitor-scores-window" value={windowIndex} onChange={(event) => setWindowIndex(Number(event.target.value))}>
            {WINDOWS.map((option, index) => (
              <option key={option.label} value={index}>
                {option.label}
              </option>
            ))}
          </select>
        </div>
      </div>
      {monitors.length === 0 ? (
        <Empty title="No monitor yet." />
      ) : (
        <QueryState result={result} loadingLabel="Reading the scores…">
          {(data) => {
            const columns = data.project?.feedbackAggregate.bucketColumns;
            const points = new Map<string, [number, number][]>();
            columns?.timeBucketStartMs.forEach((start, index) => {
              const scorer = String(columns.group[index]?.scorer_id ?? '');
              const count = Number(columns.ratingCounts[index]?._rating_ ?? 0);
              if (start === null || start === undefined || !scorer || count === 0) return;
              points.set(scorer, [...(points.get(scorer) ?? []), [Number(start), Number(columns.ratingSums[index]?._rating_ ?? 0) / count]]);
            });
            const names = [...points.keys()].sort((a, b) => a.localeCompare(b));
            // Colours: TimeSeriesChart's palette, in this (name) order.
            const series: TimeSeries[] = names.map((name) => ({ label: name, points: points.get(name)! }));
            return series.length === 0 ? (
              <Empty title={`No scores in the ${window.label.toLowerCase()}.`} />
            ) : (
              <TimeSeriesChart
                title={`Mean score per ${window.bucketLabel}, by monitor`}
                series={series}
                yLabel="mean score"
                xRange={[afterMs, beforeMs]}
                step={window.bucketSeconds * 1000}
                height={220}
              />
            );
          }}
        </QueryState>
      )}
    </section>
  );
}
