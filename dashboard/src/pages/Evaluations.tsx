import { useMemo, useState, type FormEvent } from 'react';
import { useQuery } from 'urql';
import { BarList, type BarItem } from '../components/BarList';
import { DataTable, useCursorPager, type Column } from '../components/DataTable';
import { formatDuration, formatNumber, relativeTime, StatusBadge } from '../components/Format';
import { PageHeader } from '../components/PageHeader';
import { ProjectPicker, splitProject, useProjectParam } from '../components/ProjectPicker';
import { Empty, Loading, QueryState } from '../components/States';
import { TimeSeriesChart, type TimeSeries } from '../components/TimeSeriesChart';
import {
  EvaluationCompareDocument,
  EvaluationFeedbackDocument,
  EvaluationRunsDocument,
  type EvaluationCompareQuery,
  type EvaluationFeedbackQuery,
  type EvaluationRunFieldsFragment,
  type FeedbackAggregateInput,
} from '../graphql/generated';
import { Link, useSearchParams } from '../router';
import type { PageProps } from '../routes';
import './Evaluations.css';

type Run = EvaluationRunFieldsFragment;
type Comparison = NonNullable<NonNullable<EvaluationCompareQuery['project']>['evaluationComparison']>;
type Example = Comparison['examples'][number];

const RUNS_PAGE = 25;

/* ------------------------------------------------------------------------------------------------------------ */
/* Formatting of scores                                                                                          */

interface MetricKey {
  scorer: string;
  metric: string | null;
  kind: 'NUMBER' | 'BOOLEAN';
}

const metricId = (metric: { scorer: string; metric: string | null }) => `${metric.scorer}\u0000${metric.metric ?? ''}`;
const metricLabel = (metric: { scorer: string; metric: string | null }) => (metric.metric ? `${metric.scorer} · ${metric.metric}` : metric.scorer);

/** A mean or a value: booleans as a percentage true, numbers with up to three decimals. */
export function formatScore(value: number | null | undefined, kind: 'NUMBER' | 'BOOLEAN'): string {
  if (value === null || value === undefined) return '—';
  if (kind === 'BOOLEAN') return `${Math.round(value * 1000) / 10}%`;
  return new Intl.NumberFormat('en', { maximumFractionDigits: 3 }).format(value);
}

/** A single example's value: booleans as true/false. */
function formatValue(value: number | null, kind: 'NUMBER' | 'BOOLEAN'): string {
  if (value === null) return '—';
  if (kind === 'BOOLEAN') return value >= 0.5 ? 'true' : 'false';
  return formatScore(value, kind);
}

/** Which side is better (higher wins); null when equal or either is missing. */
function better(a: number | null, b: number | null): 'A' | 'B' | null {
  if (a === null || b === null || a === b) return null;
  return a > b ? 'A' : 'B';
}

function preview(value: unknown, max = 120): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'string') return value.length > max ? `${value.slice(0, max)}…` : value;
  if (typeof value === 'object' && !Array.isArray(value)) {
    const text = Object.entries(value as Record<string, unknown>)
      .map(([key, item]) => `${key}: ${typeof item === 'string' ? item : JSON.stringify(item)}`)
      .join(', ');
    return text.length > max ? `${text.slice(0, max)}…` : text;
  }
  const text = JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

function runLabel(run: Pick<Run, 'evaluation' | 'model'>): string {
  return `${run.model} on ${run.evaluation}`;
}

/* ------------------------------------------------------------------------------------------------------------ */
/* The page                                                                                                      */

export default function Evaluations(_props: PageProps) {
  const [project, setProject] = useProjectParam();
  const [search, setSearch] = useSearchParams();
  const names = splitProject(project);

  /** Changes some query parameters, keeping the others (the project, the selection, the filters). */
  const update = (changes: Record<string, string | null>, push = false) => {
    const next: Record<string, string | null> = Object.fromEntries(search.entries());
    if (project) next.project = project;
    Object.assign(next, changes);
    setSearch(next, { push });
  };

  const selected = [search.get('a'), search.get('b')].filter((id): id is string => Boolean(id));

  return (
    <>
      <PageHeader
        title="Evaluations"
        description="Evaluation runs of a project with their scores per scorer, two runs compared example by example, and scorer feedback over time."
        actions={<ProjectPicker value={project} onChange={setProject} />}
      />
      {!names ? (
        project === null ? (
          <Loading label="Finding your projects…" />
        ) : (
          <Empty title="Choose a project.">Pick one of your teams’ projects above.</Empty>
        )
      ) : (
        <>
          <RunsSection
            key={`runs-${project}`}
            entity={names.entity}
            project={names.project}
            selected={selected}
            onSelect={(ids) => update({ a: ids[0] ?? null, b: ids[1] ?? null }, true)}
          />
          {selected.length === 2 ? (
            <ComparisonSection entity={names.entity} project={names.project} runA={selected[0]!} runB={selected[1]!} onClear={() => update({ a: null, b: null }, true)} />
          ) : null}
          <FeedbackSection key={`feedback-${project}`} entity={names.entity} project={names.project} search={search} onApply={(filters) => update(filters)} />
        </>
      )}
    </>
  );
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Runs                                                                                                          */

function RunsSection({ entity, project, selected, onSelect }: { entity: string; project: string; selected: string[]; onSelect: (ids: string[]) => void }) {
  const pager = useCursorPager();
  const [result, refetch] = useQuery({ query: EvaluationRunsDocument, variables: { entity, project, first: RUNS_PAGE, after: pager.after }, requestPolicy: 'cache-and-network' });

  const toggle = (id: string) => {
    if (selected.includes(id)) onSelect(selected.filter((other) => other !== id));
    else onSelect([...selected, id].slice(-2)); // a third choice replaces the older one
  };

  return (
    <section className="section card" aria-labelledby="runs-heading">
      <div className="card-header">
        <h2 id="runs-heading">Evaluation runs</h2>
        <span className="muted">Tick two runs to compare them.</span>
        <button type="button" className="button button-quiet eval-refresh" onClick={() => refetch({ requestPolicy: 'network-only' })}>
          Refresh
        </button>
      </div>
      <QueryState result={result} loadingLabel="Loading evaluation runs…">
        {(data) => {
          const connection = data.project?.evaluationRuns;
          if (!data.project || !connection) return <Empty title={`No project ${entity}/${project}.`} />;
          if (connection.edges.length === 0 && pager.page === 1) {
            return (
              <Empty title="No evaluation runs in this project yet.">
                Run one with the Weave SDK (<code>new weave.Evaluation(&#123; dataset, scorers &#125;).evaluate(&#123; model &#125;)</code>) or record one with the
                evaluation API (<code>POST /traces/v2/{entity}/{project}/evaluation_runs</code>).
              </Empty>
            );
          }
          return <RunsTable entity={entity} project={project} connection={connection} pager={pager} selected={selected} onToggle={toggle} />;
        }}
      </QueryState>
    </section>
  );
}

function RunsTable({
  entity,
  project,
  connection,
  pager,
  selected,
  onToggle,
}: {
  entity: string;
  project: string;
  connection: { edges: { node: Run }[]; pageInfo: { hasNextPage: boolean; endCursor?: string | null } };
  pager: ReturnType<typeof useCursorPager>;
  selected: string[];
  onToggle: (id: string) => void;
}) {
  // One column per scorer metric seen on this page, in scorer then metric order.
  const metrics = useMemo(() => {
    const seen = new Map<string, MetricKey>();
    for (const { node } of connection.edges) for (const score of node.scores) seen.set(metricId(score), score);
    return [...seen.values()].sort((a, b) => a.scorer.localeCompare(b.scorer) || (a.metric ?? '').localeCompare(b.metric ?? ''));
  }, [connection]);

  const columns: Column<Run>[] = [
    {
      key: 'select',
      header: 'Compare',
      render: (run) => (
        <input
          type="checkbox"
          className="eval-select"
          checked={selected.includes(run.id)}
          onChange={() => onToggle(run.id)}
          aria-label={`Compare ${runLabel(run)} (started ${run.startedAt ?? 'unknown'})`}
        />
      ),
    },
    {
      key: 'run',
      header: 'Model',
      render: (run) => (
        <div className="eval-run-name">
          <strong>{run.model}</strong>
          <span className="muted">
            {run.evaluation} · {run.source === 'WEAVE_SDK' ? 'Weave SDK' : 'evaluation API'}
            {run.traceId ? (
              <>
                {' · '}
                <Link to={`/traces/${encodeURIComponent(entity)}/${encodeURIComponent(project)}/${encodeURIComponent(run.traceId)}`} aria-label={`Open trace of ${runLabel(run)}`}>
                  trace
                </Link>
              </>
            ) : null}
          </span>
        </div>
      ),
    },
    { key: 'status', header: 'Status', render: (run) => <StatusBadge status={run.status.toLowerCase()} /> },
    { key: 'examples', header: 'Examples', align: 'right', render: (run) => formatNumber(run.exampleCount) },
    ...metrics.map(
      (metric): Column<Run> => ({
        key: `metric-${metricId(metric)}`,
        header: metricLabel(metric),
        align: 'right',
        className: 'eval-score-cell',
        render: (run) => {
          const score = run.scores.find((candidate) => metricId(candidate) === metricId(metric));
          if (!score) return <span className="muted">—</span>;
          return (
            <span title={`mean over ${score.count} ${score.count === 1 ? 'example' : 'examples'}`} data-metric={metricLabel(metric)}>
              {formatScore(score.mean, score.kind)}
            </span>
          );
        },
      }),
    ),
    {
      key: 'started',
      header: 'Started',
      render: (run) => (
        <div className="eval-run-name">
          <span title={run.startedAt ?? undefined}>{relativeTime(run.startedAt)}</span>
          <span className="muted">
            {run.startedAt && run.endedAt ? `took ${formatDuration(new Date(run.endedAt).getTime() - new Date(run.startedAt).getTime())}` : run.status === 'RUNNING' ? 'still running' : ''}
          </span>
        </div>
      ),
    },
  ];

  return (
    <div className="eval-runs">
    <DataTable
      caption="Evaluation runs, newest first"
      columns={columns}
      connection={connection}
      pager={pager}
      rowKey={(run) => run.id}
      rowClassName={(run) => (selected.includes(run.id) ? 'selected' : undefined)}
    />
    </div>
  );
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Comparison                                                                                                    */

function ComparisonSection({ entity, project, runA, runB, onClear }: { entity: string; project: string; runA: string; runB: string; onClear: () => void }) {
  const [result] = useQuery({ query: EvaluationCompareDocument, variables: { entity, project, runA, runB } });
  const [onlyDifferent, setOnlyDifferent] = useState(false);

  return (
    <section className="section card" aria-labelledby="compare-heading" data-testid="comparison">
      <div className="card-header">
        <h2 id="compare-heading">Comparison</h2>
        <span className="muted">A is the run ticked first. Higher is better for every metric.</span>
        <button type="button" className="button button-quiet eval-refresh" onClick={onClear}>
          Clear selection
        </button>
      </div>
      <QueryState result={result} loadingLabel="Comparing the two runs…">
        {(data) => {
          const comparison = data.project?.evaluationComparison;
          if (!comparison) return <Empty title="These runs are not in this project." />;
          const examples = onlyDifferent ? comparison.examples.filter(differs) : comparison.examples;
          return (
            <>
              <ComparisonSummary comparison={comparison} />
              <div className="eval-compare-toolbar">
                <h3>Per example</h3>
                <label className="eval-checkbox">
                  <input type="checkbox" checked={onlyDifferent} onChange={(event) => setOnlyDifferent(event.target.checked)} />
                  Only examples the runs score differently
                </label>
                <span className="muted">
                  {examples.length} of {comparison.examples.length} {comparison.examples.length === 1 ? 'example' : 'examples'}
                  {comparison.truncated ? ' (the first 2,000)' : ''}
                </span>
              </div>
              <ComparisonExamples comparison={comparison} examples={examples} />
            </>
          );
        }}
      </QueryState>
    </section>
  );
}

function differs(example: Example): boolean {
  return !example.inA || !example.inB || example.scores.some((score) => score.valueA !== score.valueB);
}

function comparisonMetrics(comparison: Comparison): MetricKey[] {
  const seen = new Map<string, MetricKey>();
  for (const score of [...comparison.runA.scores, ...comparison.runB.scores]) seen.set(metricId(score), score);
  for (const example of comparison.examples) for (const score of example.scores) if (!seen.has(metricId(score))) seen.set(metricId(score), score);
  return [...seen.values()].sort((a, b) => a.scorer.localeCompare(b.scorer) || (a.metric ?? '').localeCompare(b.metric ?? ''));
}

function RunHeading({ run, side }: { run: Run; side: 'A' | 'B' }) {
  return (
    <span className="eval-run-heading">
      <span className={`eval-side eval-side-${side.toLowerCase()}`} aria-hidden="true">
        {side}
      </span>
      <span>
        <span className="visually-hidden">Run {side}: </span>
        <strong>{run.model}</strong> <span className="muted">{run.evaluation}</span>
      </span>
    </span>
  );
}

function Verdict({ side, winner }: { side: 'A' | 'B'; winner: 'A' | 'B' | null }) {
  if (!winner) return null;
  return winner === side ? (
    <span className="eval-verdict">
      <span aria-hidden="true"> ▲</span>
      <span className="visually-hidden"> (better)</span>
    </span>
  ) : (
    <span className="eval-verdict">
      <span aria-hidden="true"> ▼</span>
      <span className="visually-hidden"> (worse)</span>
    </span>
  );
}

const cellClass = (side: 'A' | 'B', winner: 'A' | 'B' | null) => (winner === null ? 'align-right' : `align-right ${winner === side ? 'eval-better' : 'eval-worse'}`);

function ComparisonSummary({ comparison }: { comparison: Comparison }) {
  const metrics = comparisonMetrics(comparison);
  const find = (run: Run, metric: MetricKey) => run.scores.find((score) => metricId(score) === metricId(metric)) ?? null;
  return (
    <div className="table-scroll">
      <table className="eval-summary" data-testid="comparison-summary">
        <caption className="visually-hidden">Mean per scorer metric of the two runs</caption>
        <thead>
          <tr>
            <th scope="col">Scorer metric</th>
            <th scope="col" className="align-right">
              <RunHeading run={comparison.runA} side="A" />
            </th>
            <th scope="col" className="align-right">
              <RunHeading run={comparison.runB} side="B" />
            </th>
            <th scope="col" className="align-right">
              Change (B − A)
            </th>
          </tr>
        </thead>
        <tbody>
          <tr>
            <th scope="row">Examples</th>
            <td className="align-right">{formatNumber(comparison.runA.exampleCount)}</td>
            <td className="align-right">{formatNumber(comparison.runB.exampleCount)}</td>
            <td />
          </tr>
          {metrics.map((metric) => {
            const a = find(comparison.runA, metric);
            const b = find(comparison.runB, metric);
            const winner = better(a?.mean ?? null, b?.mean ?? null);
            const delta = a && b ? b.mean - a.mean : null;
            return (
              <tr key={metricId(metric)} data-metric={metricLabel(metric)}>
                <th scope="row">{metricLabel(metric)}</th>
                <td className={cellClass('A', winner)}>
                  {formatScore(a?.mean, metric.kind)}
                  <Verdict side="A" winner={winner} />
                </td>
                <td className={cellClass('B', winner)}>
                  {formatScore(b?.mean, metric.kind)}
                  <Verdict side="B" winner={winner} />
                </td>
                <td className="align-right">{delta === null ? '—' : `${delta > 0 ? '+' : delta < 0 ? '−' : '±'}${formatScore(Math.abs(delta), metric.kind)}`}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

function ComparisonExamples({ comparison, examples }: { comparison: Comparison; examples: Example[] }) {
  const metrics = comparisonMetrics(comparison);
  if (examples.length === 0) return <Empty title="No examples to show.">The two runs score every example the same.</Empty>;
  return (
    <div className="table-scroll">
      <table className="eval-examples" data-testid="comparison-examples">
        <caption className="visually-hidden">Each example as the two runs answered and scored it</caption>
        <thead>
          <tr>
            <th scope="col" rowSpan={2}>
              Example
            </th>
            <th scope="colgroup" colSpan={2}>
              Output
            </th>
            {metrics.map((metric) => (
              <th key={metricId(metric)} scope="colgroup" colSpan={2} className="eval-metric-group">
                {metricLabel(metric)}
              </th>
            ))}
          </tr>
          <tr>
            <th scope="col">
              <span aria-hidden="true">A</span>
              <span className="visually-hidden">Output of run A</span>
            </th>
            <th scope="col">
              <span aria-hidden="true">B</span>
              <span className="visually-hidden">Output of run B</span>
            </th>
            {metrics.flatMap((metric) => [
              <th key={`${metricId(metric)}-a`} scope="col" className="align-right eval-metric-group">
                <span aria-hidden="true">A</span>
                <span className="visually-hidden">{metricLabel(metric)} of run A</span>
              </th>,
              <th key={`${metricId(metric)}-b`} scope="col" className="align-right">
                <span aria-hidden="true">B</span>
                <span className="visually-hidden">{metricLabel(metric)} of run B</span>
              </th>,
            ])}
          </tr>
        </thead>
        <tbody>
          {examples.map((example) => (
            <tr key={example.key} data-example={example.key}>
              <th scope="row" className="eval-example-inputs" title={JSON.stringify(example.inputs)}>
                {preview(example.inputs)}
                {!example.inA || !example.inB ? <span className="badge">only in {example.inA ? 'A' : 'B'}</span> : null}
              </th>
              <td className="eval-output">{example.inA ? preview(example.outputA, 80) : <span className="muted">—</span>}</td>
              <td className="eval-output">{example.inB ? preview(example.outputB, 80) : <span className="muted">—</span>}</td>
              {metrics.flatMap((metric) => {
                const score = example.scores.find((candidate) => metricId(candidate) === metricId(metric));
                const a = score?.valueA ?? null;
                const b = score?.valueB ?? null;
                const winner = better(a, b);
                return [
                  <td key={`${metricId(metric)}-a`} className={`${cellClass('A', winner)} eval-metric-group`} data-metric={metricLabel(metric)} data-side="A">
                    {formatValue(a, metric.kind)}
                    <Verdict side="A" winner={winner} />
                  </td>,
                  <td key={`${metricId(metric)}-b`} className={cellClass('B', winner)} data-metric={metricLabel(metric)} data-side="B">
                    {formatValue(b, metric.kind)}
                    <Verdict side="B" winner={winner} />
                  </td>,
                ];
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Feedback aggregates                                                                                           */

const MINUTE = 60;
const HOUR = 3600;
const DAY = 86_400;
const WINDOWS: { value: string; label: string; seconds: number }[] = [
  { value: '15m', label: 'Last 15 minutes', seconds: 15 * MINUTE },
  { value: '1h', label: 'Last hour', seconds: HOUR },
  { value: '24h', label: 'Last 24 hours', seconds: DAY },
  { value: '7d', label: 'Last 7 days', seconds: 7 * DAY },
  { value: '30d', label: 'Last 30 days', seconds: 30 * DAY },
];
const BUCKETS: { seconds: number; label: string }[] = [
  { seconds: 1, label: '1 second' },
  { seconds: 10, label: '10 seconds' },
  { seconds: MINUTE, label: '1 minute' },
  { seconds: 5 * MINUTE, label: '5 minutes' },
  { seconds: HOUR, label: '1 hour' },
  { seconds: 6 * HOUR, label: '6 hours' },
  { seconds: DAY, label: '1 day' },
];
/** The server's cap on buckets per request. */
const MAX_BUCKETS = 10_000;
const DEFAULT_WINDOW = '24h';
const DEFAULT_BUCKET: Record<string, number> = { '15m': MINUTE, '1h': MINUTE, '24h': HOUR, '7d': 6 * HOUR, '30d': DAY };

function bucketsFor(windowSeconds: number) {
  return BUCKETS.filter((bucket) => Math.ceil(windowSeconds / bucket.seconds) + 1 <= MAX_BUCKETS && bucket.seconds <= windowSeconds);
}

interface FeedbackFilters {
  window: string;
  bucket: number;
  tags: string[];
  scorers: string[];
  ratingMin: number | null;
  ratingMax: number | null;
}

const list = (value: string | null) =>
  (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
const rating = (value: string | null) => {
  if (value === null || value.trim() === '') return null;
  const number = Number(value);
  return Number.isFinite(number) ? number : null;
};

function filtersFrom(search: URLSearchParams): FeedbackFilters {
  const window = WINDOWS.some((item) => item.value === search.get('window')) ? search.get('window')! : DEFAULT_WINDOW;
  const windowSeconds = WINDOWS.find((item) => item.value === window)!.seconds;
  const allowed = bucketsFor(windowSeconds).map((bucket) => bucket.seconds);
  const asked = Number(search.get('bucket'));
  const bucket = allowed.includes(asked) ? asked : DEFAULT_BUCKET[window]!;
  return { window, bucket, tags: list(search.get('tags')), scorers: list(search.get('scorers')), ratingMin: rating(search.get('rmin')), ratingMax: rating(search.get('rmax')) };
}

const RATING_BINS = [0, 0.2, 0.4, 0.6, 0.8];
/** The chart component's palette, assigned by scorer name so a scorer keeps its colour across charts. */
const SCORER_COLORS = ['#3b6cf0', '#e8590c', '#2f9e44', '#ae3ec9', '#f59f00', '#0c8599', '#e03131'];
const EPSILON = 1e-9;

function FeedbackSection({ entity, project, search, onApply }: { entity: string; project: string; search: URLSearchParams; onApply: (filters: Record<string, string | null>) => void }) {
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
    const windowSeconds = WINDOWS.find((item) => item.value === filters.window)!.seconds;
    const beforeMs = anchor + 1000;
    // Absent filters are left out (the aggregate refuses an explicit null list).
    const base: FeedbackAggregateInput = {
      afterMs: beforeMs - windowSeconds * 1000,
      beforeMs,
      ...(filters.tags.length > 0 ? { tags: filters.tags } : {}),
      ...(filters.scorers.length > 0 ? { scorerIds: filters.scorers } : {}),
      ...(filters.ratingMin !== null ? { ratingMin: filters.ratingMin } : {}),
      ...(filters.ratingMax !== null ? { ratingMax: filters.ratingMax } : {}),
    };
    const bin = (index: number): FeedbackAggregateInput => {
      const low = Math.max(RATING_BINS[index]!, filters.ratingMin ?? 0);
      const high = Math.min(index === RATING_BINS.length - 1 ? 1 : RATING_BINS[index + 1]! - EPSILON, filters.ratingMax ?? 1);
      // A bin outside the chosen bounds is still asked for (the document has five), and shown as zero.
      return low <= high ? { ...base, ratingMin: low, ratingMax: high } : { ...base, ratingMin: RATING_BINS[index]!, ratingMax: RATING_BINS[index]! };
    };
    return {
      entity,
      project,
      input: { ...base, timeBucketSeconds: filters.bucket, groupBy: ['SCORER_ID' as const] },
      bin0: bin(0),
      bin1: bin(1),
      bin2: bin(2),
      bin3: bin(3),
      bin4: bin(4),
    };
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
        {(data) => (data.project ? <FeedbackCharts data={data.project} bucketSeconds={filters.bucket} ratingBounds={filters} /> : <Empty title={`No project ${entity}/${project}.`} />)}
      </QueryState>
    </section>
  );
}

function FeedbackFilterForm({ filters, onApply, onRefresh }: { filters: FeedbackFilters; onApply: (filters: Record<string, string | null>) => void; onRefresh: () => void }) {
  const [window, setWindow] = useState(filters.window);
  const [bucket, setBucket] = useState(String(filters.bucket));
  const [tags, setTags] = useState(filters.tags.join(', '));
  const [scorers, setScorers] = useState(filters.scorers.join(', '));
  const [ratingMin, setRatingMin] = useState(filters.ratingMin === null ? '' : String(filters.ratingMin));
  const [ratingMax, setRatingMax] = useState(filters.ratingMax === null ? '' : String(filters.ratingMax));
  const [problem, setProblem] = useState<string | null>(null);

  const windowSeconds = WINDOWS.find((item) => item.value === window)!.seconds;
  const buckets = bucketsFor(windowSeconds);
  const bucketValue = buckets.some((item) => String(item.seconds) === bucket) ? bucket : String(DEFAULT_BUCKET[window]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const min = rating(ratingMin);
    const max = rating(ratingMax);
    for (const [label, text, value] of [
      ['Minimum rating', ratingMin, min],
      ['Maximum rating', ratingMax, max],
    ] as const) {
      if (text.trim() !== '' && (value === null || value < 0 || value > 1)) {
        setProblem(`${label} must be a number between 0 and 1.`);
        return;
      }
    }
    if (min !== null && max !== null && min > max) {
      setProblem('The minimum rating is above the maximum.');
      return;
    }
    setProblem(null);
    onApply({
      window,
      bucket: bucketValue,
      tags: list(tags).join(',') || null,
      scorers: list(scorers).join(',') || null,
      rmin: min === null ? null : String(min),
      rmax: max === null ? null : String(max),
    });
    onRefresh();
  };

  return (
    <form className="filters eval-filters" onSubmit={submit} aria-label="Feedback filters" noValidate>
      <div className="field">
        <label htmlFor="feedback-window">Time window</label>
        <select id="feedback-window" value={window} onChange={(event) => setWindow(event.target.value)}>
          {WINDOWS.map((item) => (
            <option key={item.value} value={item.value}>
              {item.label}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="feedback-bucket">Bucket size</label>
        <select id="feedback-bucket" value={bucketValue} onChange={(event) => setBucket(event.target.value)}>
          {buckets.map((item) => (
            <option key={item.seconds} value={item.seconds}>
              {item.label}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="feedback-scorers">Scorers</label>
        <input id="feedback-scorers" value={scorers} onChange={(event) => setScorers(event.target.value)} placeholder="all scorers" size={14} aria-describedby="feedback-filter-hint" />
      </div>
      <div className="field">
        <label htmlFor="feedback-tags">Tags</label>
        <input id="feedback-tags" value={tags} onChange={(event) => setTags(event.target.value)} placeholder="any tag" size={12} aria-describedby="feedback-filter-hint" />
      </div>
      <div className="field">
        <label htmlFor="feedback-rating-min">Min rating</label>
        <input id="feedback-rating-min" type="number" min={0} max={1} step={0.05} inputMode="decimal" value={ratingMin} onChange={(event) => setRatingMin(event.target.value)} placeholder="0" className="eval-rating-input" />
      </div>
      <div className="field">
        <label htmlFor="feedback-rating-max">Max rating</label>
        <input id="feedback-rating-max" type="number" min={0} max={1} step={0.05} inputMode="decimal" value={ratingMax} onChange={(event) => setRatingMax(event.target.value)} placeholder="1" className="eval-rating-input" />
      </div>
      <div className="field eval-filter-actions">
        <button type="submit" className="button button-primary">
          Apply
        </button>
      </div>
      <p id="feedback-filter-hint" className="hint eval-filter-hint">
        Scorers and tags: comma-separated names; a scorer ending in * matches every scorer with that prefix. Ratings filter on <code>_rating_</code> (0 to 1).
      </p>
      {problem ? (
        <p className="inline-error eval-filter-problem" role="alert">
          {problem}
        </p>
      ) : null}
    </form>
  );
}

type FeedbackProject = NonNullable<EvaluationFeedbackQuery['project']>;

/** A histogram bin that lies outside the rating bounds of the filters. */
function binExcluded(index: number, bounds: { ratingMin: number | null; ratingMax: number | null }): boolean {
  const low = Math.max(RATING_BINS[index]!, bounds.ratingMin ?? 0);
  const high = Math.min(index === RATING_BINS.length - 1 ? 1 : RATING_BINS[index + 1]! - EPSILON, bounds.ratingMax ?? 1);
  return low > high;
}

function FeedbackCharts({ data, bucketSeconds, ratingBounds }: { data: FeedbackProject; bucketSeconds: number; ratingBounds: { ratingMin: number | null; ratingMax: number | null } }) {
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
        counts.set(scorer, [...(counts.get(scorer) ?? []), [start, count]]);
        const ratingCount = Number(columns.ratingCounts[index]?._rating_ ?? 0);
        if (ratingCount > 0) means.set(scorer, [...(means.get(scorer) ?? []), [start, Number(columns.ratingSums[index]?._rating_ ?? 0) / ratingCount]]);
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

  const bins: BarItem[] = [data.bin0, data.bin1, data.bin2, data.bin3, data.bin4].map((bin, index) => ({
    label: index === RATING_BINS.length - 1 ? `${RATING_BINS[index]!.toFixed(1)}–1.0` : `${RATING_BINS[index]!.toFixed(1)}–${RATING_BINS[index + 1]!.toFixed(1)}`,
    value: binExcluded(index, ratingBounds) ? 0 : bin.buckets.reduce((sum, bucket) => sum + bucket.totalCount, 0),
  }));
  const rated = bins.reduce((sum, bin) => sum + bin.value, 0);

  if (total === 0) {
    return (
      <Empty title="No feedback in this window with these filters.">
        Scores recorded by the evaluation API become feedback; so does anything sent to <code>POST /traces/feedback/create</code> with a scorer (<code>runnable_ref</code>), tags or ratings.
      </Empty>
    );
  }
  const bucketLabel = BUCKETS.find((bucket) => bucket.seconds === bucketSeconds)?.label ?? `${bucketSeconds} s`;
  return (
    <div className="eval-feedback">
      <p className="hint">
        {formatNumber(total)} feedback {total === 1 ? 'record' : 'records'} in the window, in {bucketLabel} buckets.
      </p>
      <div className="eval-chart-grid">
        <TimeSeriesChart title={`Feedback records per ${bucketLabel}, by scorer`} series={countSeries} yLabel="records" height={220} />
        {ratingSeries.length > 0 ? (
          <TimeSeriesChart title="Mean rating (_rating_) per bucket, by scorer" series={ratingSeries} yLabel="rating" height={220} />
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
          {rated > 0 ? (
            <BarList items={bins} caption="Feedback records per _rating_ range" labelHeader="_rating_" valueHeader="Records" testId="rating-distribution" />
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

