import { memo, useDeferredValue, useEffect, useMemo, useState } from 'react';
import { useQuery } from 'urql';
import { DataTable, useCursorPager } from '../components/DataTable';
import { formatNumber } from '../components/Format';
import { PageHeader } from '../components/PageHeader';
import { ProjectPicker, splitProject, useProjectParam } from '../components/ProjectPicker';
import { Empty, ErrorState, Loading } from '../components/States';
import { TimeSeriesChart, type TimeSeries } from '../components/TimeSeriesChart';
import { latencyPercentiles } from './traces/latency-percentiles';
import { TracesPageDocument } from '../graphql/generated';
import { useSearchParams } from '../router';
import { downloadCalls } from './traces/export-calls';
import { AddToDataset } from './traces/AddToDataset';
import { selectColumn, SelectPage, useCallSelection } from './traces/call-selection';
import { ColumnChooser, tracesColumns, useHiddenColumns, type TraceRow } from './traces/traces-columns';
import { TracesFilters } from './traces/TracesFilters';
import { isFiltered, readParams, toDatasetSelection, toExportBody, toQuery, toSearch, toUrlParams, type ExportFormat, type TracesParams } from './traces/traces-params';
import './Traces.css';

/** The header counts this many matching calls at most: past it, "more than 10,000" (exact counts read every match). */
const COUNT_AT_MOST = 10_000;

export default function Traces() {
  const [project, setProject] = useProjectParam();
  const [urlSearch, setUrlSearch] = useSearchParams();
  const params = useMemo(() => readParams(urlSearch, project ?? ''), [urlSearch, project]);
  const pager = useCursorPager();
  const target = splitProject(project);
  const filtered = isFiltered(params);

  const apply = (changes: Partial<TracesParams>) => {
    pager.reset();
    setUrlSearch(toUrlParams({ ...params, ...changes }));
  };
  const clear = () => {
    pager.reset();
    setUrlSearch({ project, roots: params.rootsOnly ? null : 'all', size: params.pageSize === 25 ? null : params.pageSize });
  };

  const [result, reexecute] = useQuery({
    query: TracesPageDocument,
    variables: {
      entity: target?.entity ?? '',
      project: target?.project ?? '',
      first: params.pageSize,
      after: pager.after,
      sortBy: [{ field: params.sort.field, direction: params.sort.direction }],
      filter: params.rootsOnly ? { traceRootsOnly: true } : null,
      query: toQuery(params),
      search: toSearch(params),
      countAtMost: COUNT_AT_MOST,
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

  const columns = useMemo(() => tracesColumns(target), [target?.entity, target?.project]); // eslint-disable-line react-hooks/exhaustive-deps
  const [hidden, toggleColumn] = useHiddenColumns(columns);
  const pageCalls = useMemo(() => result.data?.project?.calls.edges.map((edge) => edge.node) ?? [], [result.data]);
  // The chart follows in a render of its own, after the table has painted: the rows are what the reader waits for.
  const chartCalls = useDeferredValue(pageCalls);
  const selection = useCallSelection(project);
  const [addingToDataset, setAddingToDataset] = useState(false);
  const datasetSelection = toDatasetSelection(params);
  const shown = useMemo(() => [selectColumn(selection), ...columns.filter((column) => !hidden.has(column.key))], [columns, hidden, selection]);

  return (
    <>
      <PageHeader
        title="Traces"
        description="Calls traced by the Weave SDKs and the inference API. Search their inputs and outputs, open one to see its call tree."
        actions={<ProjectPicker value={project} onChange={(next) => { pager.reset(); setProject(next); }} />}
      />
      {!project ? (
        <Empty title="No project to show.">Pick a project above, or send traces with the Weave SDK first.</Empty>
      ) : (
        <section className="card" aria-labelledby="calls-heading">
          <h2 id="calls-heading" className="visually-hidden">
            Calls of {project}
          </h2>
          <TracesFilters params={params} filtered={filtered} onApply={apply} onClear={clear} />
          {result.error && !result.data ? (
            <ErrorState error={result.error} title={`Could not load the calls of ${project}`} onRetry={() => reexecute({ requestPolicy: 'network-only' })} />
          ) : !result.data ? (
            <Loading label="Loading calls…" />
          ) : !result.data.project ? (
            <Empty title={`There is no project ${project} you can see.`} />
          ) : (
            <>
              <div className="traces-toolbar">
                <p className="table-meta" aria-live="polite">
                  {result.data.project.matching > COUNT_AT_MOST ? `More than ${formatNumber(COUNT_AT_MOST)}` : formatNumber(result.data.project.matching)}{' '}
                  {result.data.project.matching === 1 ? (params.rootsOnly ? 'trace matches' : 'call matches') : params.rootsOnly ? 'traces match' : 'calls match'}
                  {result.fetching ? <span className="muted"> · refreshing…</span> : null}
                </p>
                <SelectPage selection={selection} pageIds={pageCalls.map((call) => call.id)} />
                <button type="button" className="button" disabled={selection.ids.length === 0 && !datasetSelection} aria-expanded={addingToDataset} onClick={() => setAddingToDataset((open) => !open)}>
                  Add to dataset{selection.ids.length ? ` (${selection.ids.length})` : ''}
                </button>
                <ColumnChooser columns={columns} hidden={hidden} onToggle={toggleColumn} />
                <ExportButtons params={params} />
              </div>
              {addingToDataset && (selection.ids.length > 0 || datasetSelection) ? (
                <AddToDataset
                  projectId={project}
                  callIds={selection.ids}
                  matching={datasetSelection ? { count: result.data.project.matching, countAtMost: COUNT_AT_MOST, selection: datasetSelection } : null}
                  onClose={() => setAddingToDataset(false)}
                />
              ) : null}
              <div className="traces-table">
                <DataTable
                  caption={`Calls of ${project}`}
                  columns={shown}
                  connection={result.data.project.calls}
                  pager={pager}
                  sort={params.sort}
                  onSortChange={(sort) => apply({ sort })}
                  rowKey={(call) => call.id}
                  empty={filtered ? 'No calls match these filters.' : 'No calls in this project yet.'}
                />
              </div>
              <LatencyChart calls={chartCalls} />
            </>
          )}
        </section>
      )}
    </>
  );
}

/** Export of every call the list selects (not only this page), streamed by the server, in either format. */
function ExportButtons({ params }: { params: TracesParams }) {
  const [busy, setBusy] = useState<ExportFormat | null>(null);
  const [error, setError] = useState<string | null>(null);
  const exportAs = async (format: ExportFormat) => {
    setBusy(format);
    setError(null);
    try {
      await downloadCalls(toExportBody(params, format), format, `${params.project.replace('/', '-')}-calls`);
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    } finally {
      setBusy(null);
    }
  };
  return (
    <div className="traces-export" role="group" aria-label="Export the matching calls">
      {(['jsonl', 'csv'] as const).map((format) => (
        <button key={format} type="button" className="button" disabled={busy !== null} onClick={() => void exportAs(format)}>
          {busy === format ? 'Exporting…' : `Export ${format.toUpperCase()}`}
        </button>
      ))}
      {error ? (
        <span className="traces-export-error" role="alert">
          {error}
        </span>
      ) : null}
    </div>
  );
}

/** Latency of the ended calls on this page over their start: p50 and p95 per bucket (latency-percentiles.ts). */
const LatencyChart = memo(function LatencyChart({ calls }: { calls: TraceRow[] }) {
  const chart = useMemo(
    () =>
      latencyPercentiles(
        calls
          .filter((call) => call.startedAt && call.latencyMs !== null && call.latencyMs !== undefined)
          .map((call) => ({ startedAt: new Date(call.startedAt!).getTime(), latencyMs: call.latencyMs! })),
      ),
    [calls],
  );
  const series: TimeSeries[] = useMemo(
    () => (chart ? [{ label: 'p50 (ms)', points: chart.p50 }, { label: 'p95 (ms)', points: chart.p95, dashed: true }] : []),
    [chart],
  );
  if (!chart) return null;
  return <TimeSeriesChart title="Latency of the calls on this page, p50 and p95" series={series} height={140} yLabel="ms" xRange={chart.range} step={chart.step} />;
});
