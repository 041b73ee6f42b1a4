import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { useQuery } from 'urql';
import { DataTable, useCursorPager, type Column, type SortState } from '../components/DataTable';
import { formatDuration, formatNumber, ShortId, StatusBadge, Time } from '../components/Format';
import { PageHeader } from '../components/PageHeader';
import { ProjectPicker, splitProject, useProjectParam } from '../components/ProjectPicker';
import { Empty, ErrorState, Loading } from '../components/States';
import { TimeSeriesChart, type TimeSeries } from '../components/TimeSeriesChart';
import { TracesPageDocument, type TracesPageQuery, type TracesPageQueryVariables } from '../graphql/generated';
import { href, Link, useSearchParams } from '../router';
import { callName } from './Home';

type Call = NonNullable<TracesPageQuery['project']>['calls']['edges'][number]['node'];
type Operand = NonNullable<NonNullable<TracesPageQueryVariables['query']>['expr']['and']>[number];

const PAGE_SIZE = 25;
const STATUSES = ['success', 'error', 'running', 'descendant_error'] as const;

/** The Weave query for the filters: op name (substring of the trace name or the op ref) and status. */
function buildQuery(op: string, status: string): TracesPageQueryVariables['query'] {
  const operands: Operand[] = [];
  if (op) {
    operands.push({
      or: [
        { contains: { input: { getField: 'summary.weave.trace_name' }, substr: { literal: op }, caseInsensitive: true } },
        { contains: { input: { getField: 'op_name' }, substr: { literal: op }, caseInsensitive: true } },
      ],
    });
  }
  if (status) operands.push({ eq: [{ getField: 'summary.weave.status' }, { literal: status }] });
  if (operands.length === 0) return null;
  return { expr: { and: operands } };
}

export default function Traces() {
  const [project, setProject] = useProjectParam();
  const [search, setSearch] = useSearchParams();
  const op = search.get('op') ?? '';
  const status = search.get('status') ?? '';
  const rootsOnly = search.get('roots') !== 'all';
  const [sortField, sortDirection] = (search.get('sort') ?? 'started_at:DESC').split(':');
  const sort: SortState = { field: sortField || 'started_at', direction: sortDirection === 'ASC' ? 'ASC' : 'DESC' };
  const pager = useCursorPager();
  const target = splitProject(project);

  const setParams = (changes: Record<string, string | null>) => {
    pager.reset();
    setSearch({ project, op, status, roots: rootsOnly ? null : 'all', sort: `${sort.field}:${sort.direction}`, ...changes });
  };

  const [result, reexecute] = useQuery({
    query: TracesPageDocument,
    variables: {
      entity: target?.entity ?? '',
      project: target?.project ?? '',
      first: PAGE_SIZE,
      after: pager.after,
      sortBy: [{ field: sort.field, direction: sort.direction }],
      filter: rootsOnly ? { traceRootsOnly: true } : null,
      query: buildQuery(op, status),
    },
    pause: !target,
  });

  // Refresh while something on the page is still running.
  const running = result.data?.project?.calls.edges.some((edge) => edge.node.status === 'running') ?? false;
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => reexecute({ requestPolicy: 'network-only' }), 2000);
    return () => clearInterval(timer);
  }, [running, reexecute]);

  const columns: Column<Call>[] = useMemo(
    () => [
      {
        key: 'op',
        header: 'Op name',
        sortField: 'op_name',
        render: (call) =>
          target ? (
            <Link to={`/traces/${encodeURIComponent(target.entity)}/${encodeURIComponent(target.project)}/${encodeURIComponent(call.traceId ?? call.id)}${call.parentId ? `?call=${encodeURIComponent(call.id)}` : ''}`}>
              {callName(call)}
            </Link>
          ) : (
            callName(call)
          ),
      },
      { key: 'status', header: 'Status', sortField: 'summary.weave.status', render: (call) => <StatusBadge status={call.status} /> },
      { key: 'latency', header: 'Latency', sortField: 'summary.weave.latency_ms', align: 'right', render: (call) => formatDuration(call.latencyMs) },
      { key: 'started', header: 'Started at', sortField: 'started_at', render: (call) => <Time value={call.startedAt} /> },
      { key: 'trace', header: 'Trace id', render: (call) => <ShortId id={call.traceId} /> },
      { key: 'user', header: 'User / run', render: (call) =>
          call.wbUserId || call.wbRunId ? (
            <span className="muted">
              <ShortId id={call.wbUserId} />
              {call.wbRunId ? <> · {call.wbRunId}</> : null}
            </span>
          ) : (
            <span className="muted">—</span>
          ),
      },
    ],
    [target],
  );

  return (
    <>
      <PageHeader
        title="Traces"
        description="Calls traced by the Weave SDKs and the inference API. Open one to see its call tree."
        actions={<ProjectPicker value={project} onChange={(next) => { pager.reset(); setProject(next); }} />}
      />
      {!project ? (
        <Empty title="No project to show.">Pick a project above, or send traces with the Weave SDK first.</Empty>
      ) : (
        <section className="card" aria-labelledby="calls-heading">
          <h2 id="calls-heading" className="visually-hidden">
            Calls of {project}
          </h2>
          <Filters op={op} status={status} rootsOnly={rootsOnly} onApply={setParams} />
          {result.error && !result.data ? (
            <ErrorState error={result.error} title={`Could not load the calls of ${project}`} onRetry={() => reexecute({ requestPolicy: 'network-only' })} />
          ) : !result.data ? (
            <Loading label="Loading calls…" />
          ) : !result.data.project ? (
            <Empty title={`There is no project ${project} you can see.`} />
          ) : (
            <>
              <p className="table-meta" aria-live="polite">
                {formatNumber(result.data.project.matching)} {rootsOnly ? 'traces' : 'calls'} match
                {result.fetching ? <span className="muted"> · refreshing…</span> : null}
              </p>
              <DataTable
                caption={`Calls of ${project}`}
                columns={columns}
                connection={result.data.project.calls}
                pager={pager}
                sort={sort}
                onSortChange={(next) => setParams({ sort: `${next.field}:${next.direction}` })}
                rowKey={(call) => call.id}
                empty={op || status ? 'No calls match these filters.' : 'No calls in this project yet.'}
              />
              <LatencyChart calls={result.data.project.calls.edges.map((edge) => edge.node)} />
            </>
          )}
        </section>
      )}
    </>
  );
}

function Filters({ op, status, rootsOnly, onApply }: { op: string; status: string; rootsOnly: boolean; onApply: (changes: Record<string, string | null>) => void }) {
  const [opText, setOpText] = useState(op);
  useEffect(() => setOpText(op), [op]);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onApply({ op: opText.trim() || null });
  };
  return (
    <form className="filters" role="search" aria-label="Filter calls" onSubmit={submit}>
      <div className="field">
        <label htmlFor="filter-op">Op name contains</label>
        <input id="filter-op" type="search" value={opText} onChange={(event) => setOpText(event.target.value)} placeholder="e.g. predict" />
      </div>
      <div className="field">
        <label htmlFor="filter-status">Status</label>
        <select id="filter-status" value={status} onChange={(event) => onApply({ status: event.target.value || null, op: opText.trim() || null })}>
          <option value="">Any</option>
          {STATUSES.map((value) => (
            <option key={value} value={value}>
              {value.replace('_', ' ')}
            </option>
          ))}
        </select>
      </div>
      <div className="field field-check">
        <input
          id="filter-roots"
          type="checkbox"
          checked={rootsOnly}
          onChange={(event) => onApply({ roots: event.target.checked ? null : 'all', op: opText.trim() || null })}
        />
        <label htmlFor="filter-roots">Trace roots only</label>
      </div>
      <button type="submit" className="button">
        Apply
      </button>
      {op || status || !rootsOnly ? (
        <a className="link-reset" href={href('/traces')} onClick={(event) => { event.preventDefault(); setOpText(''); onApply({ op: null, status: null, roots: null }); }}>
          Clear filters
        </a>
      ) : null}
    </form>
  );
}

/** Latency of the calls on this page against their start: a quick look for outliers (ended calls only). */
function LatencyChart({ calls }: { calls: Call[] }) {
  const series: TimeSeries[] = useMemo(() => {
    const points = calls
      .filter((call) => call.startedAt && call.latencyMs !== null && call.latencyMs !== undefined)
      .map((call) => [new Date(call.startedAt!).getTime(), call.latencyMs!] as const)
      .sort((a, b) => a[0] - b[0]);
    return [{ label: 'Latency (ms)', points }];
  }, [calls]);
  if (series[0]!.points.length < 2) return null;
  return <TimeSeriesChart title="Latency of the calls on this page" series={series} height={140} yLabel="ms" />;
}
