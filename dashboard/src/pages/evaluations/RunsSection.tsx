import { useMemo } from 'react';
import { useQuery } from 'urql';
import { DataTable, useCursorPager, type Column } from '../../components/DataTable';
import { formatDuration, formatNumber, relativeTime, StatusBadge } from '../../components/Format';
import { Empty, QueryState } from '../../components/States';
import { EvaluationRunsDocument } from '../../graphql/generated';
import { Link } from '../../router';
import { byMetric, formatScore, metricId, metricLabel, runLabel, type MetricKey, type Run } from './scores';

const RUNS_PAGE = 25;
/** The comparison holds this many runs at most (the graph's evaluationRunsComparison). */
export const MAX_COMPARED_RUNS = 4;

/** The project's evaluation runs with their means per scorer metric; ticking runs chooses what is compared. */
export function RunsSection({ entity, project, selected, onSelect }: { entity: string; project: string; selected: string[]; onSelect: (ids: string[]) => void }) {
  const pager = useCursorPager();
  const [result, refetch] = useQuery({ query: EvaluationRunsDocument, variables: { entity, project, first: RUNS_PAGE, after: pager.after }, requestPolicy: 'cache-and-network' });

  // The first run ticked is the baseline; a run added later joins the end, up to four.
  const toggle = (id: string) => {
    if (selected.includes(id)) onSelect(selected.filter((other) => other !== id));
    else if (selected.length < MAX_COMPARED_RUNS) onSelect([...selected, id]);
  };

  return (
    <section className="section card" aria-labelledby="runs-heading">
      <div className="card-header">
        <h2 id="runs-heading">Evaluation runs</h2>
        <span className="muted" id="runs-hint">
          Tick two to four runs to compare them; the first ticked is the baseline.
        </span>
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
    return [...seen.values()].sort(byMetric);
  }, [connection]);
  const full = selected.length >= MAX_COMPARED_RUNS;

  const columns: Column<Run>[] = [
    {
      key: 'select',
      header: 'Compare',
      render: (run) => (
        <input
          type="checkbox"
          className="eval-select"
          checked={selected.includes(run.id)}
          disabled={full && !selected.includes(run.id)}
          onChange={() => onToggle(run.id)}
          aria-label={`Compare ${runLabel(run)} (started ${run.startedAt ?? 'unknown'})`}
          aria-describedby="runs-hint"
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
