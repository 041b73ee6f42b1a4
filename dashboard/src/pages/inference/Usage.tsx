import { useEffect, useMemo, useRef } from 'react';
import { useQuery } from 'urql';
import { formatCost } from '../../components/Cost';
import { DataTable, type Column } from '../../components/DataTable';
import { formatNumber } from '../../components/Format';
import { Empty, QueryState } from '../../components/States';
import { TimeSeriesChart, type TimeSeries } from '../../components/TimeSeriesChart';
import { InferenceUsageSeriesDocument, type InferenceUsageSeriesQuery } from '../../graphql/generated';

/** Time windows of the usage charts: how far back, and the bucket that gives a readable number of points. */
export const USAGE_WINDOWS = [
  { id: '1h', label: 'Last hour', seconds: 3600, bucketSeconds: 60, bucketLabel: 'per minute' },
  { id: '6h', label: 'Last 6 hours', seconds: 6 * 3600, bucketSeconds: 300, bucketLabel: 'per 5 minutes' },
  { id: '24h', label: 'Last 24 hours', seconds: 86_400, bucketSeconds: 1800, bucketLabel: 'per 30 minutes' },
  { id: '7d', label: 'Last 7 days', seconds: 7 * 86_400, bucketSeconds: 6 * 3600, bucketLabel: 'per 6 hours' },
  { id: '30d', label: 'Last 30 days', seconds: 30 * 86_400, bucketSeconds: 86_400, bucketLabel: 'per day' },
] as const;
export type UsageWindowId = (typeof USAGE_WINDOWS)[number]['id'];

type Bucket = NonNullable<InferenceUsageSeriesQuery['team']>['inferenceUsageSeries'][number];
interface Group {
  key: string;
  project: string;
  model: string;
  requests: number;
  errors: number;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /** US dollars at the price table; null when the model has no price. */
  cost: number | null;
  buckets: Map<number, Bucket>;
}

/** A sum of costs that stays unknown (null) once one part is. */
const addCost = (sum: number | null, cost: number | null | undefined): number | null => (sum === null || cost === null || cost === undefined ? null : sum + cost);

/** The window's bounds, aligned on buckets (the graph aligns them on the epoch), fixed until `refreshed` changes. */
function useBounds(windowId: UsageWindowId, refreshed: number) {
  return useMemo(() => {
    const window = USAGE_WINDOWS.find((candidate) => candidate.id === windowId) ?? USAGE_WINDOWS[0];
    const step = window.bucketSeconds * 1000;
    const to = Math.ceil((Date.now() + 1) / step) * step;
    const from = to - Math.ceil((window.seconds * 1000) / step) * step;
    void refreshed; // a refresh moves the window to now
    return { window, step, from, to };
  }, [windowId, refreshed]);
}

/**
 * Inference usage of a team's projects over time, one series per project and model (or per model when a project is
 * chosen): requests, tokens, cost, errors (each bucket of the window drawn, empty ones as 0) and latency percentiles (p50, p99
 * dashed; gaps where there were no requests), every chart spanning exactly the chosen window. The section
 * carries the totals as data attributes (data-requests, data-errors, data-tokens, data-cost) for tests.
 */
export function Usage({ team, project, windowId, refreshed }: { team: string; project: string | null; windowId: UsageWindowId; refreshed: number }) {
  const { window, step, from, to } = useBounds(windowId, refreshed);
  const [result, reexecute] = useQuery({
    query: InferenceUsageSeriesDocument,
    variables: { team, from: new Date(from).toISOString(), to: new Date(to).toISOString(), bucketSeconds: window.bucketSeconds },
    requestPolicy: 'cache-and-network',
  });
  // A refresh within the same bucket keeps the variables: ask the server again anyway.
  const seen = useRef(refreshed);
  useEffect(() => {
    if (seen.current === refreshed) return;
    seen.current = refreshed;
    reexecute({ requestPolicy: 'network-only' });
  }, [refreshed, reexecute]);
  return (
    <QueryState result={result} loadingLabel="Loading usage…">
      {(data) =>
        data.team ? (
          <UsageCharts buckets={data.team.inferenceUsageSeries} project={project} from={from} to={to} step={step} windowLabel={window.label} bucketLabel={window.bucketLabel} />
        ) : (
          <Empty title={`Team ${team} was not found.`} />
        )
      }
    </QueryState>
  );
}

function UsageCharts({
  buckets,
  project,
  from,
  to,
  step,
  windowLabel,
  bucketLabel,
}: {
  buckets: readonly Bucket[];
  project: string | null;
  from: number;
  to: number;
  step: number;
  windowLabel: string;
  bucketLabel: string;
}) {
  const groups = useMemo(() => {
    const byKey = new Map<string, Group>();
    for (const bucket of buckets) {
      const projectName = bucket.project ?? '—';
      if (project && projectName !== project) continue;
      const model = bucket.model ?? '(unresolved)';
      const key = project ? model : `${projectName} · ${model}`;
      let group = byKey.get(key);
      if (!group) {
        group = { key, project: projectName, model, requests: 0, errors: 0, promptTokens: 0, completionTokens: 0, totalTokens: 0, cost: 0, buckets: new Map() };
        byKey.set(key, group);
      }
      group.requests += bucket.requests;
      group.errors += bucket.errors;
      group.promptTokens += bucket.promptTokens;
      group.completionTokens += bucket.completionTokens;
      group.totalTokens += bucket.totalTokens;
      group.cost = addCost(group.cost, bucket.cost);
      if (bucket.period) group.buckets.set(new Date(bucket.period).getTime(), bucket);
    }
    return [...byKey.values()].sort((a, b) => b.requests - a.requests || a.key.localeCompare(b.key));
  }, [buckets, project]);

  const series = useMemo(() => {
    const times: number[] = [];
    for (let time = from; time < to; time += step) times.push(time);
    const of = (pick: (bucket: Bucket) => number): TimeSeries[] =>
      groups.map((group, index) => ({ label: group.key, color: SERIES_COLORS[index % SERIES_COLORS.length], points: times.map((time) => [time, pick(group.buckets.get(time) ?? ZERO)] as const) }));
    // Latency as percentiles per bucket, the p99 dashed in its group's colour; no value where there were no requests
    // (a gap, not 0).
    const latency: TimeSeries[] = groups.flatMap((group, index) => {
      const color = SERIES_COLORS[index % SERIES_COLORS.length];
      return [
        { label: `${group.key} p50`, color, points: times.map((time) => [time, group.buckets.get(time)?.latencyP50Ms ?? null] as const) },
        { label: `${group.key} p99`, color, dashed: true, points: times.map((time) => [time, group.buckets.get(time)?.latencyP99Ms ?? null] as const) },
      ];
    });
    return { requests: of((b) => b.requests), tokens: of((b) => b.totalTokens), errors: of((b) => b.errors), latency };
  }, [groups, from, to, step]);

  const window = useMemo(() => [from, to] as const, [from, to]);
  const totals = groups.reduce(
    (sum, group) => ({
      requests: sum.requests + group.requests,
      errors: sum.errors + group.errors,
      tokens: sum.tokens + group.totalTokens,
      cost: addCost(sum.cost, group.cost),
    }),
    { requests: 0, errors: 0, tokens: 0, cost: 0 as number | null },
  );

  const columns: Column<Group>[] = [
    ...(project ? [] : [{ key: 'project', header: 'Project', render: (group: Group) => group.project, sortValue: (group: Group) => group.project }]),
    { key: 'model', header: 'Model', render: (group) => <code>{group.model}</code>, sortValue: (group) => group.model },
    { key: 'requests', header: 'Requests', align: 'right', render: (group) => formatNumber(group.requests), sortValue: (group) => group.requests },
    { key: 'prompt', header: 'Prompt tokens', align: 'right', render: (group) => formatNumber(group.promptTokens), sortValue: (group) => group.promptTokens },
    {
      key: 'completion',
      header: 'Completion tokens',
      align: 'right',
      render: (group) => formatNumber(group.completionTokens),
      sortValue: (group) => group.completionTokens,
    },
    {
      key: 'cost',
      header: 'Cost',
      align: 'right',
      render: (group) => <span title={group.cost === null ? 'No price for this model' : undefined}>{formatCost(group.cost)}</span>,
      sortValue: (group) => group.cost ?? -1,
    },
    {
      key: 'errors',
      header: 'Errors',
      align: 'right',
      render: (group) => (group.errors > 0 ? <span className="status status-error">{formatNumber(group.errors)}</span> : '0'),
      sortValue: (group) => group.errors,
    },
  ];

  return (
    <div data-testid="inference-usage" data-requests={totals.requests} data-errors={totals.errors} data-tokens={totals.tokens} data-cost={totals.cost ?? ''}>
      <dl className="stat-grid usage-stats">
        <Stat label="Requests" value={formatNumber(totals.requests)} />
        <Stat label="Tokens" value={formatNumber(totals.tokens)} />
        <Stat label="Cost" value={formatCost(totals.cost)} />
        <Stat label="Errors" value={formatNumber(totals.errors)} />
        <Stat label="Error rate" value={totals.requests ? `${((100 * totals.errors) / totals.requests).toFixed(1)} %` : '—'} />
      </dl>
      {groups.length === 0 ? (
        <Empty title={`No inference requests ${project ? `in ${project} ` : ''}in the ${windowLabel.toLowerCase()}.`}>
          Send some with any OpenAI client: <code>base_url={globalThis.location.origin}/inference/v1</code>, or try the playground below.
        </Empty>
      ) : (
        <>
          <div className="usage-charts">
            <TimeSeriesChart title={`Requests ${bucketLabel}`} series={series.requests} height={180} yLabel="requests" xRange={window} step={step} />
            <TimeSeriesChart title={`Tokens ${bucketLabel}`} series={series.tokens} height={180} yLabel="tokens" xRange={window} step={step} />
            <TimeSeriesChart title={`Errors ${bucketLabel}`} series={series.errors} height={180} yLabel="errors" xRange={window} step={step} />
            <TimeSeriesChart title={`Latency ${bucketLabel} (p50, p99 dashed)`} series={series.latency} height={180} yLabel="ms" xRange={window} step={step} />
          </div>
          <DataTable caption={`Usage per ${project ? 'model' : 'project and model'}, ${windowLabel.toLowerCase()}`} columns={columns} rows={groups} rowKey={(group) => group.key} />
        </>
      )}
    </div>
  );
}

const ZERO: Bucket = { period: null, project: null, model: null, requests: 0, errors: 0, promptTokens: 0, completionTokens: 0, totalTokens: 0, latencyP50Ms: 0, latencyP99Ms: 0, cost: 0 };
/** One colour per project and model, the same in every chart. */
const SERIES_COLORS = ['var(--series-1)', 'var(--series-2)', 'var(--series-3)', 'var(--series-4)', 'var(--series-5)', 'var(--series-6)', 'var(--series-7)'];

function Stat({ label, value }: { label: string; value: string }) {
  return (
    <div className="stat">
      <dt>{label}</dt>
      <dd>{value}</dd>
    </div>
  );
}
