import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { useMutation, useQuery, type CombinedError } from 'urql';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { DataTable, useCursorPager, type Column } from '../components/DataTable';
import { formatDuration, Time } from '../components/Format';
import { JsonViewer } from '../components/JsonViewer';
import { PageHeader } from '../components/PageHeader';
import { ErrorState, InlineError, Loading, QueryState } from '../components/States';
import { isActiveJob, JobStatusBadge, usePolling } from '../components/TrainingJobStatus';
import { CancelTrainingJobDocument, TrainingJobDetailDocument, TrainingJobEventsDocument, type TrainingJobDetailQuery, type TrainingJobEventsQuery } from '../graphql/generated';
import { href, Link } from '../router';
import type { PageProps } from '../routes';
import { JobCurves } from './training/JobCurves';

type Job = TrainingJobDetailQuery['trainingJob'];
type JobEvent = TrainingJobEventsQuery['trainingJob']['events']['nodes'][number];

/** An event's data in one line: `loss 0.6931 · reward 0.5 · …` (numbers to 4 significant digits). */
/** The figures a person looks for first; the rest follow in the trainer's order. */
const LEADING = ['step', 'loss', 'reward', 'grad_norm', 'error_message'];

function eventSummary(data: Record<string, unknown>): string {
  const rank = (name: string) => (LEADING.includes(name) ? LEADING.indexOf(name) : LEADING.length);
  return Object.entries(data)
    .sort(([a], [b]) => rank(a) - rank(b))
    .map(([name, value]) => `${name} ${typeof value === 'number' ? formatMetric(value) : typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(' · ');
}

function formatMetric(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toPrecision(4);
}

const eventColumns: Column<JobEvent>[] = [
  { key: 'time', header: 'Time', className: 'nowrap', render: (event) => <Time value={event.createdAt} /> },
  { key: 'type', header: 'Event', className: 'nowrap', render: (event) => <span className={`event-type event-${event.type}`}>{event.type.replace(/_/g, ' ')}</span> },
  { key: 'data', header: 'Data', render: (event) => <span className="event-data">{eventSummary(event.data) || '—'}</span> },
];

function durationOf(job: Job): number | null {
  if (!job.trainingStart) return null;
  const end = job.trainingEnd ? Date.parse(job.trainingEnd) : Date.now();
  return end - Date.parse(job.trainingStart);
}

export default function TrainingJob({ params }: PageProps) {
  const id = params.jobId ?? '';
  const [result, reexecute] = useQuery({ query: TrainingJobDetailDocument, variables: { id }, requestPolicy: 'network-only' });
  const refresh = useCallback(() => reexecute({ requestPolicy: 'network-only' }), [reexecute]);
  // The last job read stays on screen when a refresh fails (the failure is shown above it): a poll that is refused
  // midway must not take the page, or a cancel's answer, away.
  const lastJob = useRef<Job | undefined>(undefined);
  if (result.data?.trainingJob) lastJob.current = result.data.trainingJob;
  const job = result.data?.trainingJob ?? (lastJob.current?.id === id ? lastJob.current : undefined);
  const active = job ? isActiveJob(job.status) : false;
  usePolling(active, refresh);

  const title = job ? `${job.kind} job ${job.id.slice(0, 8)}` : 'Training job';
  return (
    <>
      <p className="breadcrumb">
        <Link to={job?.model ? href('/training', { project: `${job.model.entity}/${job.model.project}` }) : '/training'}>← Training</Link>
      </p>
      <PageHeader
        title={title}
        description={
          job ? (
            <>
              <JobStatusBadge status={job.status} testId="job-status" />{' '}
              {job.model ? (
                <>
                  on <span className="mono">{job.model.name}</span> ({job.model.baseModel}) in{' '}
                  <Link className="inline-link" to={href('/training', { project: `${job.model.entity}/${job.model.project}` })}>
                    {job.model.entity}/{job.model.project}
                  </Link>
                </>
              ) : (
                <span className="muted">(its model was deleted)</span>
              )}
              {active ? (
                <span className="live-indicator title-badges" role="status">
                  <span className="live-dot" aria-hidden="true" />
                  Live, refreshed every 2 s
                </span>
              ) : null}
            </>
          ) : undefined
        }
        actions={job ? <CancelJob id={job.id} active={active} onDone={refresh} /> : null}
      />
      {job ? (
        <>
          {result.error ? <ErrorState error={result.error} title="Could not refresh the job (showing what was last read)" /> : null}
          <JobBody job={job} />
        </>
      ) : (
        <QueryState result={result} loadingLabel="Loading the job…">
          {(data) => <JobBody job={data.trainingJob} />}
        </QueryState>
      )}
    </>
  );
}

function JobBody({ job }: { job: Job }) {
  return (
    <>
      <section aria-labelledby="summary-heading" className="section card">
        <h2 id="summary-heading">Summary</h2>
        <dl className="detail-grid">
          <Detail label="Job id">
            <code>{job.id}</code>
          </Detail>
          <Detail label="Kind"><abbr title={job.kind === 'RL' ? 'reinforcement learning' : 'supervised fine-tuning'}>{job.kind}</abbr></Detail>
          <Detail label="Submitted">
            <Time value={job.createdAt} />
          </Detail>
          <Detail label="Started">
            <Time value={job.trainingStart} />
          </Detail>
          <Detail label="Ended">
            <Time value={job.trainingEnd} />
          </Detail>
          <Detail label="Training time">{formatDuration(durationOf(job))}</Detail>
          <Detail label="Steps reported">{job.metrics.length}</Detail>
        </dl>
        {job.errorMessage ? (
          <p className="inline-error" role="alert">
            <strong>Error:</strong> {job.errorMessage}
          </p>
        ) : null}
      </section>

      <section aria-labelledby="curves-heading" className="section card">
        <h2 id="curves-heading">Curves</h2>
        {job.metrics.length === 0 ? (
          <p className="chart-empty">{isActiveJob(job.status) ? 'No step reported yet: the curves appear with the first optimizer step.' : 'The job reported no optimizer steps.'}</p>
        ) : (
          <JobCurves job={job} modelId={job.model?.id ?? null} />
        )}
      </section>

      <EventLog jobId={job.id} active={isActiveJob(job.status)} />

      <section aria-labelledby="config-heading" className="section card">
        <h2 id="config-heading">Settings the job was submitted with</h2>
        <JsonViewer value={job.config} openDepth={2} />
      </section>
    </>
  );
}

/** The job's events in order, 100 a page; re-read every 2 s while the job can still change. */
function EventLog({ jobId, active }: { jobId: string; active: boolean }) {
  const pager = useCursorPager();
  const [result, reexecute] = useQuery({ query: TrainingJobEventsDocument, variables: { id: jobId, after: pager.after }, requestPolicy: 'network-only' });
  const refresh = useCallback(() => reexecute({ requestPolicy: 'network-only' }), [reexecute]);
  // One more read when the job ends, so the final event (training_ended / training_failed) shows.
  useEffect(() => {
    if (!active) refresh();
  }, [active, refresh]);
  usePolling(active, refresh);
  const events = result.data?.trainingJob.events;
  const connection = useMemo(() => (events ? { edges: events.nodes.map((node) => ({ node })), pageInfo: events.pageInfo } : null), [events]);
  return (
    <section aria-labelledby="events-heading" className="section card">
      <div className="card-header">
        <h2 id="events-heading">Event log</h2>
      </div>
      {result.error && !connection ? <InlineError error={result.error} /> : null}
      {!connection ? (
        result.error ? null : <Loading label="Loading events…" />
      ) : (
        <DataTable
          caption="Events of the job"
          columns={eventColumns}
          connection={connection}
          pager={pager}
          rowKey={(event) => event.id}
          empty={active ? 'Waiting for a trainer to pick the job up…' : 'No events.'}
        />
      )}
    </section>
  );
}

function Detail({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

/**
 * "Cancel job" (while the job can change): asks first, then cancelTrainingJob; the server's refusal, or the job
 * having ended first, stays shown after the button goes.
 */
function CancelJob({ id, active, onDone }: { id: string; active: boolean; onDone: () => void }) {
  const [open, setOpen] = useState(false);
  const [state, cancel] = useMutation(CancelTrainingJobDocument);
  const [error, setError] = useState<CombinedError | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const confirm = async () => {
    setError(null);
    setNotice(null);
    const result = await cancel({ id });
    setOpen(false);
    if (result.error) setError(result.error);
    else if (result.data && result.data.cancelTrainingJob.status !== 'CANCELLED') setNotice(`The job had already ended (${result.data.cancelTrainingJob.status}); nothing to cancel.`);
    onDone();
  };
  return (
    <div className="cancel-job">
      {active ? (
        <button type="button" className="button button-danger" onClick={() => setOpen(true)} disabled={state.fetching}>
          Cancel job
        </button>
      ) : null}
      <ConfirmDialog
        open={open}
        title="Cancel this training job?"
        confirmLabel="Yes, cancel the job"
        cancelLabel="Keep it running"
        danger
        busy={state.fetching}
        onConfirm={() => void confirm()}
        onClose={() => setOpen(false)}
      >
        Training stops at once and no checkpoint is saved from this job. This cannot be undone.
      </ConfirmDialog>
      {error ? (
        <div data-testid="cancel-error">
          <InlineError error={error} />
        </div>
      ) : null}
      {notice ? <p className="notice" role="status">{notice}</p> : null}
    </div>
  );
}
