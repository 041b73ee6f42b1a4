import { useMemo, useState } from 'react';
import { useQuery } from 'urql';
import { BarList, type BarItem } from '../../components/BarList';
import { formatNumber } from '../../components/Format';
import { Empty, QueryState } from '../../components/States';
import { TimeSeriesChart, type TimeSeries } from '../../components/TimeSeriesChart';
import { EvaluationFeedbackDocument, type EvaluationFeedbackQuery, type FeedbackAggregateInput } from '../../graphql/generated';
import { BUCKETS, filtersFrom, windowSecondsOf } from './feedback-filters';
import { FeedbackFilterForm } from './FeedbackFilterForm';
import { formatScore } from './scores';

/** The chart palette, assigned by scorer name so a scorer keeps its colour across charts. */
const SCORER_COLORS = ['var(--series-1)', 'var(--series-2)', 'var(--series-3)', 'var(--series-4)', 'var(--series-5)', 'var(--series-6)', 'var(--series-7)'];

/** Scorer feedback of the project over a chosen window: records and mean rating per bucket, tags, ratings. */
export function FeedbackSection({ entity, project, search, onApply }: { entity: string; project: string; search: URLSearchParams; onApply: (filters: Record<string, string | null>) => void }) {
  const filters = filtersFrom(search);
  const filterKey = JSON.stringify(filters);
  const [anchor, setAnchor] = useState(() => Date.now());
  const [anchoredKey, setAnchoredKey] = useState(filterKey);
  // A new choice of filters looks at the window ending now.
  if (anchoredKey !== filterKey) {
    setAnchoredKey(filterKey);
    setAnchor(Date.now());
  }

  const variables = useMemo(() => {
    const beforeMs = anchor + 1000;
    // Absent filters are left out (the aggregate refuses an explicit null list).
    const base: FeedbackAggregateInput = {
      afterMs: beforeMs - windowSecondsOf(filters.window) * 1000,
      beforeMs,
      ...(filters.tags.length > 0 ? { tags: filters.tags } : {}),
      ...(filters.scorers.length > 0 ? { scorerIds: filters.scorers } : {}),
      ...(filters.ratingMin !== null ? { ratingMin: filters.ratingMin } : {}),
      ...(filters.ratingMax !== null ? { ratingMax: filters.ratingMax } : {}),
    };
    return { entity, project, input: { ...base, timeBucketSeconds: filters.bucket, groupBy: ['SCORER_ID' as const] }, ratings: base };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [entity, project, filterKey, anchor]);

  const [result] = useQuery({ query: EvaluationFeedbackDocument, variables });

  return (
    <section className="section card" aria-labelledby="feedback-heading">
      <div className="card-header">
        <h2 id="feedback-heading">Scorer feedback</h2>
        <span className="muted">Scores, tags and ratings recorded as feedback, per scorer over time (what POST /traces/feedback/aggregate answers).</span>
      </div>
      <FeedbackFilterForm filters={filters} onApply={onApply} onRefresh={() => setAnchor(Date.now())} />
      <QueryState result={result} loadingLabel="Aggregating feedback…">
        {(data) =>
          data.project ? (
            <FeedbackCharts data={data.project} bucketSeconds={filters.bucket} window={[variables.input.afterMs, variables.input.beforeMs]} />
          ) : (
            <Empty title={`No project ${entity}/${project}.`} />
          )
        }
      </QueryState>
    </section>
  );
}

type FeedbackProject = NonNullable<EvaluationFeedbackQuery['project']>;
type Histogram = FeedbackProject['ratingHistogram'];

/** Bin labels with as many decimals as the bin width needs: `1`, `0.25–0.5`. */
export function binLabels(histogram: Histogram): string[] {
  if (histogram.wholeNumbers) return histogram.bins.map((bin) => String(bin.low));
  const width = histogram.bins.length > 0 ? histogram.bins[0]!.high - histogram.bins[0]!.low : 1;
  const decimals = width > 0 ? Math.min(4, Math.max(0, Math.ceil(-Math.log10(width)) + 1)) : 2;
  const format = (value: number) => new Intl.NumberFormat('en', { maximumFractionDigits: decimals }).format(value);
  return histogram.bins.map((bin) => (bin.low === bin.high ? format(bin.low) : `${format(bin.low)}–${format(bin.high)}`));
}

function FeedbackCharts({ data, bucketSeconds, window }: { data: FeedbackProject; bucketSeconds: number; window: readonly [number, number] }) {
  const columns = data.series.bucketColumns;
  const { countSeries, ratingSeries, tags, ratings, total } = useMemo(() => {
    const counts = new Map<string, [number, number][]>();
    const means = new Map<string, [number, number][]>();
    const tagTotals = new Map<string, number>();
    const ratingTotals = new Map<string, { count: number; sum: number }>();
    let total = 0;
    columns.totalCount.forEach((count, index) => {
      const start = columns.timeBucketStartMs[index];
      const scorer = String(columns.group[index]?.scorer_id ?? '') || '(no scorer)';
      total += count;
      if (start !== null && start !== undefined) {
        counts.set(scorer, [...(counts.get(scorer) ?? []), [Number(start), count]]);
        const ratingCount = Number(columns.ratingCounts[index]?._rating_ ?? 0);
        if (ratingCount > 0) means.set(scorer, [...(means.get(scorer) ?? []), [Number(start), Number(columns.ratingSums[index]?._rating_ ?? 0) / ratingCount]]);
      }
      for (const [tag, n] of Object.entries(columns.tagCounts[index] ?? {})) tagTotals.set(tag, (tagTotals.get(tag) ?? 0) + Number(n));
      for (const [name, n] of Object.entries(columns.ratingCounts[index] ?? {})) {
        const entry = ratingTotals.get(name) ?? { count: 0, sum: 0 };
        entry.count += Number(n);
        entry.sum += Number(columns.ratingSums[index]?.[name] ?? 0);
        ratingTotals.set(name, entry);
      }
    });
    const byName = (a: { label: string }, b: { label: string }) => a.label.localeCompare(b.label);
    // One colour per scorer, the same in both charts.
    const scorers = [...counts.keys()].sort((a, b) => a.localeCompare(b));
    const color = (label: string) => SCORER_COLORS[scorers.indexOf(label) % SCORER_COLORS.length];
    return {
      countSeries: [...counts.entries()].map(([label, points]): TimeSeries => ({ label, points, color: color(label) })).sort(byName),
      ratingSeries: [...means.entries()].map(([label, points]): TimeSeries => ({ label, points, color: color(label) })).sort(byName),
      tags: [...tagTotals.entries()].map(([label, value]): BarItem => ({ label, value })).sort((a, b) => b.value - a.value || a.label.localeCompare(b.label)),
      ratings: [...ratingTotals.entries()].map(([label, { count, sum }]) => ({ label, count, mean: count > 0 ? sum / count : 0 })).sort(byName),
      total,
    };
  }, [columns]);

  const histogram = data.ratingHistogram;
  const labels = binLabels(histogram);
  const bins: BarItem[] = histogram.bins.map((bin, index) => ({ label: labels[index]!, value: bin.count }));

  if (total === 0) {
    return (
      <Empty title="No feedback in this window with these filters.">
        Scores recorded by the evaluation API become feedback; so does anything sent to <code>POST /traces/feedback/create</code> with a scorer (<code>runnable_ref</code>), tags or ratings.
      </Empty>
    );
  }
  const bucketLabel = BUCKETS.find((bucket) => bucket.seconds === bucketSeconds)?.label ?? `${bucketSeconds} s`;
  const step = bucketSeconds * 1000;
  return (
    <div className="eval-feedback">
      <p className="hint">
        {formatNumber(total)} feedback {total === 1 ? 'record' : 'records'} in the window, in {bucketLabel} buckets.
      </p>
      <div className="eval-chart-grid">
        <TimeSeriesChart title={`Feedback records per ${bucketLabel}, by scorer`} series={countSeries} yLabel="records" xRange={window} step={step} height={220} />
        {ratingSeries.length > 0 ? (
          <TimeSeriesChart title="Mean rating (_rating_) per bucket, by scorer" series={ratingSeries} yLabel="rating" xRange={window} step={step} height={220} />
        ) : (
          <div className="eval-chart-empty">
            <p className="chart-title">Mean rating (_rating_) per bucket, by scorer</p>
            <Empty title="No ratings in this window." />
          </div>
        )}
      </div>
      <div className="eval-bars-grid">
        <div>
          <h3>Tags</h3>
          {tags.length > 0 ? <BarList items={tags} caption="How often each scorer tag occurs" labelHeader="Tag" testId="tag-counts" /> : <p className="muted">No tags in this window.</p>}
        </div>
        <div>
          <h3>Rating distribution</h3>
          {histogram.count > 0 ? (
            <>
              <p className="hint eval-histogram-range">
                {formatNumber(histogram.count)} {histogram.count === 1 ? 'rating' : 'ratings'} from {formatScore(histogram.min, 'NUMBER')} to {formatScore(histogram.max, 'NUMBER')}
                {histogram.wholeNumbers ? ', one bar per value' : ''}
              </p>
              <BarList items={bins} caption="Feedback records per _rating_ value or range, over the range the ratings span" labelHeader="_rating_" valueHeader="Records" testId="rating-distribution" />
            </>
          ) : (
            <p className="muted">No _rating_ values in this window.</p>
          )}
        </div>
        <div>
          <h3>Ratings by name</h3>
          {ratings.length > 0 ? (
            <BarList
              items={ratings.map((item) => ({ label: item.label, value: item.count, detail: `${formatNumber(item.count)} · mean ${formatScore(item.mean, 'NUMBER')}` }))}
              caption="Each rating name with how many records carry it and its mean"
              labelHeader="Rating"
              valueHeader="Records · mean"
              testId="rating-names"
            />
          ) : (
            <p className="muted">No ratings in this window.</p>
          )}
        </div>
      </div>
    </div>
  );
}
