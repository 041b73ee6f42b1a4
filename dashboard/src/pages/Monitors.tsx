import { useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { DataTable, type Column } from '../components/DataTable';
import { PageHeader } from '../components/PageHeader';
import { ProjectPicker, splitProject, useProjectParam } from '../components/ProjectPicker';
import { Empty, InlineError, QueryState } from '../components/States';
import {
  MonitorsBackfillDocument,
  MonitorsListDocument,
  MonitorsPauseDocument,
  MonitorsResumeDocument,
  type MonitorsBackfillMutation,
} from '../graphql/generated';
import { MonitorForm, type Monitor } from './monitors/MonitorForm';
import { MonitorScoresChart } from './monitors/MonitorScoresChart';
import { describeScorer, formatScore } from './monitors/monitor-format';
import './monitors/monitors.css';

type Backfill = MonitorsBackfillMutation['backfillMonitor'];
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * A project's monitors (online evaluation): what each checks and how much it samples, its counts so far (scored,
 * skipped by sampling, failed), its mean score and scoring latency; its admins create monitors, pause and resume them
 * and backfill the last day, edit them, and see their mean score over time (scores are feedback: the Evaluations page
 * charts them by scorer too).
 */
export default function Monitors() {
  const [project, setProject] = useProjectParam();
  const target = splitProject(project);
  const variables = { entity: target?.entity ?? '', project: target?.project ?? '' };
  const [result, reexecute] = useQuery({ query: MonitorsListDocument, variables, pause: !target });
  const [refreshes, setRefreshes] = useState(0);
  const refresh = () => {
    reexecute({ requestPolicy: 'network-only' });
    setRefreshes((count) => count + 1);
  };
  const [paused, pause] = useMutation(MonitorsPauseDocument);
  const [resumed, resume] = useMutation(MonitorsResumeDocument);
  const [backfilled, backfill] = useMutation(MonitorsBackfillDocument);
  const [lastBackfill, setLastBackfill] = useState<{ name: string; result: Backfill } | null>(null);
  const [editing, setEditing] = useState<Monitor | null>(null);
  const monitors = result.data?.project?.monitors ?? [];

  const toggle = async (monitor: Monitor) => {
    const run = monitor.active ? pause : resume;
    const outcome = await run({ ...variables, id: monitor.id });
    if (!outcome.error) refresh();
  };
  const backfillDay = async (monitor: Monitor) => {
    const to = new Date();
    const outcome = await backfill({ ...variables, id: monitor.id, from: new Date(to.getTime() - DAY_MS).toISOString(), to: to.toISOString() });
    if (outcome.data) {
      setLastBackfill({ name: monitor.name, result: outcome.data.backfillMonitor });
      refresh();
    }
  };

  const columns: Column<Monitor>[] = [
    { key: 'name', header: 'Monitor', render: (monitor) => <strong>{monitor.name}</strong>, sortValue: (monitor) => monitor.name },
    { key: 'scorer', header: 'Scorer', render: (monitor) => <code className="monitor-scorer">{describeScorer(monitor.scorer)}</code> },
    { key: 'calls', header: 'Calls', render: (monitor) => (monitor.filter.opNames.length > 0 ? monitor.filter.opNames.join(', ') : 'all ops') + (monitor.filter.rootsOnly ? ' (roots)' : '') },
    { key: 'rate', header: 'Sample', align: 'right', render: (monitor) => `${Math.round(monitor.samplingRate * 1000) / 10}%` },
    { key: 'status', header: 'Status', render: (monitor) => <span className={monitor.active ? 'monitor-status monitor-active' : 'monitor-status'}>{monitor.active ? 'Active' : 'Paused'}</span> },
    {
      key: 'counts',
      header: 'Scored · skipped · failed',
      align: 'right',
      render: (monitor) => `${monitor.stats?.scored ?? 0} · ${monitor.stats?.skippedBySampling ?? 0} · ${monitor.stats?.failed ?? 0}`,
      sortValue: (monitor) => monitor.stats?.scored ?? 0,
    },
    { key: 'mean', header: 'Mean score', align: 'right', render: (monitor) => formatScore(monitor.stats?.meanScore), sortValue: (monitor) => monitor.stats?.meanScore },
    {
      key: 'latency',
      header: 'Latency',
      align: 'right',
      render: (monitor) => (monitor.stats?.meanLatencyMs === null || monitor.stats?.meanLatencyMs === undefined ? '—' : `${monitor.stats.meanLatencyMs.toFixed(2)} ms`),
    },
    {
      key: 'actions',
      header: 'Actions',
      render: (monitor) => (
        <span className="monitor-actions">
          <button
            type="button"
            className="button button-quiet"
            aria-label={`${monitor.active ? 'Pause' : 'Resume'} ${monitor.name}`}
            onClick={() => void toggle(monitor)}
            disabled={paused.fetching || resumed.fetching}
          >
            {monitor.active ? 'Pause' : 'Resume'}
          </button>
          <button
            type="button"
            className="button button-quiet"
            aria-label={`Backfill 24 h: ${monitor.name}`}
            title="Score the calls of the last 24 hours it has not looked at"
            onClick={() => void backfillDay(monitor)}
            disabled={backfilled.fetching}
          >
            Backfill 24 h
          </button>
          <button type="button" className="button button-quiet" aria-label={`Edit ${monitor.name}`} onClick={() => setEditing(monitor)}>
            Edit
          </button>
        </span>
      ),
    },
  ];

  return (
    <>
      <PageHeader
        title="Monitors"
        description="Scorers applied to a sample of a project's calls as they end; each score is feedback on the call (wandb.runnable.<monitor>), charted below by monitor and on the Evaluations page by scorer."
      />
      <section className="section card monitors-list" aria-labelledby="monitors-heading">
        <h2 id="monitors-heading">Monitors of a project</h2>
        <ProjectPicker id="monitors-project" value={project} onChange={setProject} />
        {!target ? (
          <Empty title="No project to show." />
        ) : (
          <QueryState result={result} loadingLabel="Loading the monitors…">
            {(data) =>
              data.project ? (
                <>
                  <DataTable caption={`Monitors of ${data.project.fullName}`} columns={columns} rows={data.project.monitors} rowKey={(monitor) => monitor.id} empty={<Empty title="No monitor yet." />} />
                  {paused.error || resumed.error || backfilled.error ? <InlineError error={paused.error ?? resumed.error ?? backfilled.error} /> : null}
                  {lastBackfill ? (
                    <p role="status" data-testid="backfill-result">
                      Backfill of {lastBackfill.name}: {lastBackfill.result.calls} calls of the last 24 h walked, {lastBackfill.result.scored} newly scored,{' '}
                      {lastBackfill.result.skippedBySampling} skipped by sampling, {lastBackfill.result.failed} failed
                      {lastBackfill.result.resumeFrom ? ` (more from ${lastBackfill.result.resumeFrom})` : ''}.
                    </p>
                  ) : null}
                </>
              ) : (
                <Empty title={`There is no project ${project} you can see.`} />
              )
            }
          </QueryState>
        )}
      </section>
      {target ? <MonitorScoresChart entity={target.entity} project={target.project} monitors={monitors.map((monitor) => monitor.name)} refreshToken={refreshes} /> : null}
      {target ? (
        // One form: a new monitor, or the one being edited (keyed, so choosing another starts from its settings).
        <MonitorForm
          key={editing?.id ?? 'new'}
          entity={target.entity}
          project={target.project}
          editing={editing}
          onSaved={() => {
            setEditing(null);
            refresh();
          }}
          onCancel={() => setEditing(null)}
        />
      ) : null}
    </>
  );
}
