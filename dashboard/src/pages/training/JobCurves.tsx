import { useMemo, useState } from 'react';
import { useQuery } from 'urql';
import { smoothCurve } from '../../components/curve-smoothing';
import { InlineError } from '../../components/States';
import { TimeSeriesChart, type TimeSeries } from '../../components/TimeSeriesChart';
import { TrainingModelJobCurvesDocument, type TrainingCurvePointFragment } from '../../graphql/generated';
import './job-curves.css';

type Point = readonly [number, number | null];

/** A job as its curves need it. */
export interface CurveJob {
  id: string;
  kind: string;
  status: string;
  trainingStart?: string | null;
  metrics: readonly TrainingCurvePointFragment[];
}

/** The curves of a job, one chart each: x = step, y = the metric (with its axis title). */
const CURVES: { metric: string; title: string; yLabel: string; points: (job: CurveJob) => Point[] }[] = [
  { metric: 'loss', title: 'Loss', yLabel: 'loss', points: (job) => pointsOf(job, (step) => step.loss) },
  { metric: 'reward', title: 'Reward (mean)', yLabel: 'mean reward', points: (job) => pointsOf(job, (step) => step.reward) },
  { metric: 'gradNorm', title: 'Gradient norm', yLabel: 'gradient norm', points: (job) => pointsOf(job, (step) => step.gradNorm) },
  { metric: 'learningRate', title: 'Learning rate', yLabel: 'learning rate', points: (job) => pointsOf(job, (step) => step.learningRate) },
  { metric: 'tokensPerSecond', title: 'Throughput', yLabel: 'tokens/s', points: tokensPerSecond },
];

/** How many of the model's jobs the overlay reads (newest first). */
const OVERLAY_JOBS = 10;
const OWN_COLOR = 'var(--series-1)';
const OTHER_COLORS = ['var(--series-2)', 'var(--series-3)', 'var(--series-4)', 'var(--series-5)', 'var(--series-6)', 'var(--series-7)'];

function pointsOf(job: CurveJob, pick: (step: TrainingCurvePointFragment) => number | null | undefined): Point[] {
  return job.metrics.flatMap((step) => {
    const value = pick(step);
    return value === null || value === undefined ? [] : [[step.step, value] as const];
  });
}

/**
 * Tokens per second of each step: what the trainer reported (`tokens_per_second`, the SFT trainer's), else the step's
 * trainable tokens over the time since the previous step was recorded (the first step: since training started).
 */
export function tokensPerSecond(job: CurveJob): Point[] {
  let previous = job.trainingStart ? Date.parse(job.trainingStart) : null;
  return job.metrics.flatMap((step) => {
    const recorded = Date.parse(step.recordedAt);
    const reported = (step.values as Record<string, unknown> | null)?.tokens_per_second;
    const since = previous;
    previous = recorded;
    if (typeof reported === 'number' && Number.isFinite(reported)) return [[step.step, reported] as const];
    if (step.numTrainableTokens === null || step.numTrainableTokens === undefined || since === null || !(recorded > since)) return [];
    return [[step.step, step.numTrainableTokens / ((recorded - since) / 1000)] as const];
  });
}

/**
 * A job's training curves with axis titles — loss, reward, gradient norm, learning rate and throughput — with EMA
 * smoothing (the raw curve stays, dashed) and, on demand, the model's other jobs overlaid on the same axes.
 */
export function JobCurves({ job, modelId }: { job: CurveJob; modelId: string | null }) {
  const [smoothing, setSmoothing] = useState(0);
  const [overlay, setOverlay] = useState(false);
  const [others] = useQuery({ query: TrainingModelJobCurvesDocument, variables: { modelId: modelId ?? '', first: OVERLAY_JOBS }, pause: !overlay || !modelId });
  const otherJobs = useMemo(() => (overlay ? (others.data?.trainingModel.jobs.nodes ?? []).filter((other) => other.id !== job.id) : []), [overlay, others.data, job.id]);

  const charts = useMemo(
    () =>
      CURVES.map((curve) => {
        const own = curve.points(job);
        const series: TimeSeries[] = [];
        // The other jobs first, so this job's curve is drawn over theirs where they coincide.
        otherJobs.forEach((other, index) => {
          const points = curve.points(other);
          if (points.length > 0) series.push({ label: `${other.kind} job ${other.id.slice(0, 8)}`, color: OTHER_COLORS[index % OTHER_COLORS.length], points: smoothCurve(points, smoothing) });
        });
        const label = overlay ? 'this job' : curve.title;
        if (smoothing > 0 && own.length > 0) series.push({ label: `${label} (raw)`, color: OWN_COLOR, dashed: true, points: own });
        series.push({ label: smoothing > 0 ? `${label} (smoothed)` : label, color: OWN_COLOR, points: smoothCurve(own, smoothing) });
        return { ...curve, own, series: series.filter((item) => item.points.length > 0) };
      }),
    [job, otherJobs, overlay, smoothing],
  );

  return (
    <>
      <div className="filters job-curve-controls" role="group" aria-label="Curve options">
        <div className="field field-inline">
          <label htmlFor="curve-smoothing">Smoothing (EMA)</label>
          <input
            id="curve-smoothing"
            type="range"
            min={0}
            max={0.99}
            step={0.01}
            value={smoothing}
            onChange={(event) => setSmoothing(Number(event.target.value))}
            aria-valuetext={smoothing > 0 ? `weight ${smoothing.toFixed(2)}` : 'off'}
          />
          <output htmlFor="curve-smoothing" className="job-curve-smoothing-value">
            {smoothing > 0 ? smoothing.toFixed(2) : 'off'}
          </output>
        </div>
        {modelId ? (
          <label className="job-curve-overlay">
            <input type="checkbox" checked={overlay} onChange={(event) => setOverlay(event.target.checked)} />
            Overlay the model’s other jobs
          </label>
        ) : null}
        {overlay && others.error ? <InlineError error={others.error} /> : null}
      </div>
      <div className="chart-grid">
        {charts.map((chart) => (
          <div key={chart.metric} className="metric-chart" data-metric={chart.metric}>
            {chart.series.length === 0 ? (
              <figure className="chart" data-testid="time-series-chart" data-points={0} data-series={0}>
                <figcaption className="chart-title">{chart.title}</figcaption>
                <p className="chart-empty">Not reported by this job.</p>
              </figure>
            ) : (
              <TimeSeriesChart series={chart.series} title={chart.title} xKind="number" integerX xLabel="step" yLabel={chart.yLabel} height={200} />
            )}
          </div>
        ))}
      </div>
    </>
  );
}
