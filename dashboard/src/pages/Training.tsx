import { useCallback } from 'react';
import { useQuery } from 'urql';
import { DataTable, useCursorPager, type Column } from '../components/DataTable';
import { Time } from '../components/Format';
import { PageHeader } from '../components/PageHeader';
import { ProjectPicker, splitProject, useProjectParam } from '../components/ProjectPicker';
import { Empty, QueryState } from '../components/States';
import { isActiveJob, JobStatusBadge, usePolling } from '../components/TrainingJobStatus';
import { TrainingJobsDocument, TrainingModelsDocument, type TrainingJobSummaryFragment, type TrainingModelsQuery } from '../graphql/generated';
import { Link } from '../router';

type Model = NonNullable<TrainingModelsQuery['project']>['trainingModels']['edges'][number]['node'];

export function jobPath(id: string): string {
  return `/training/jobs/${encodeURIComponent(id)}`;
}

const modelColumns: Column<Model>[] = [
  { key: 'name', header: 'Model', render: (model) => <span className="mono">{model.name}</span>, sortValue: (model) => model.name },
  { key: 'base', header: 'Base model', render: (model) => <span className="mono">{model.baseModel}</span>, sortValue: (model) => model.baseModel },
  {
    key: 'checkpoints',
    header: 'Checkpoints (newest first)',
    render: (model) =>
      model.checkpoints.nodes.length === 0 ? (
        <span className="muted">none yet (step 0)</span>
      ) : (
        <span className="chip-list">
          {model.checkpoints.nodes.map((checkpoint) => (
            <span key={checkpoint.id} className="chip" title={`Saved ${checkpoint.createdAt}`}>
              step {checkpoint.step}
              {checkpoint.aliases
                .filter((alias) => alias !== `step${checkpoint.step}`)
                .map((alias) => (
                  <span key={alias} className="chip chip-alias">
                    {alias}
                  </span>
                ))}
            </span>
          ))}
          {model.checkpoints.pageInfo.hasNextPage ? <span className="muted">and older</span> : null}
        </span>
      ),
    sortValue: (model) => model.checkpoints.nodes[0]?.step ?? 0,
  },
  { key: 'created', header: 'Created', render: (model) => <Time value={model.createdAt} />, sortValue: (model) => model.createdAt },
];

const jobColumns: Column<TrainingJobSummaryFragment>[] = [
  {
    key: 'job',
    header: 'Job',
    render: (job) => (
      <Link to={jobPath(job.id)} aria-label={`${job.kind} job ${job.id.slice(0, 8)} on ${job.model?.name ?? 'a deleted model'}`}>
        <code>{job.id.slice(0, 8)}</code>
      </Link>
    ),
  },
  { key: 'kind', header: 'Kind', render: (job) => job.kind },
  { key: 'model', header: 'Model', render: (job) => (job.model ? <span className="mono">{job.model.name}</span> : <span className="muted">deleted</span>) },
  { key: 'status', header: 'Status', render: (job) => <JobStatusBadge status={job.status} /> },
  { key: 'created', header: 'Submitted', render: (job) => <Time value={job.createdAt} /> },
  { key: 'started', header: 'Started', render: (job) => <Time value={job.trainingStart} /> },
  { key: 'ended', header: 'Ended', render: (job) => <Time value={job.trainingEnd} /> },
  {
    key: 'error',
    header: 'Error',
    render: (job) => (job.errorMessage ? <span className="error-text" title={job.errorMessage}>{clip(job.errorMessage, 80)}</span> : <span className="muted">—</span>),
  },
];

export function clip(text: string, length: number): string {
  return text.length > length ? `${text.slice(0, length - 1)}…` : text;
}

export default function Training() {
  const [project, setProject] = useProjectParam();
  const parts = splitProject(project);
  const modelPager = useCursorPager();
  const jobPager = useCursorPager();
  const variables = { entity: parts?.entity ?? '', name: parts?.project ?? '' };
  const [models, reexecuteModels] = useQuery({ query: TrainingModelsDocument, variables: { ...variables, after: modelPager.after }, pause: !parts });
  const [jobs, reexecuteJobs] = useQuery({ query: TrainingJobsDocument, variables: { ...variables, after: jobPager.after }, pause: !parts });
  const refresh = useCallback(() => {
    reexecuteModels({ requestPolicy: 'network-only' });
    reexecuteJobs({ requestPolicy: 'network-only' });
  }, [reexecuteModels, reexecuteJobs]);
  // While a job on this page trains, the list (and the checkpoints it will add) is re-read every 2 s.
  const live = Boolean(jobs.data?.project?.trainingJobs.edges.some((edge) => isActiveJob(edge.node.status)));
  usePolling(live, refresh);

  return (
    <>
      <PageHeader
        title="Training"
        description="Trainable models with their checkpoints, and the RL and SFT jobs that train them."
        actions={
          <>
            {live ? (
              <span className="live-indicator" role="status">
                <span className="live-dot" aria-hidden="true" />
                Live: jobs are training
              </span>
            ) : null}
            <ProjectPicker
              value={project}
              onChange={(next) => {
                modelPager.reset();
                jobPager.reset();
                setProject(next);
              }}
            />
            <button type="button" className="button" onClick={refresh} disabled={!parts}>
              Refresh
            </button>
          </>
        }
      />
      {!parts ? (
        <Empty title="Choose a project.">Models and jobs belong to a project (entity/name).</Empty>
      ) : (
        <>
          <section aria-labelledby="models-heading" className="section card">
            <div className="card-header">
              <h2 id="models-heading">Models</h2>
              {models.data?.project ? <span className="badge">{models.data.project.trainingModelCount}</span> : null}
            </div>
            <QueryState result={models} loadingLabel="Loading models…">
              {(data) =>
                !data.project ? (
                  <Empty title={`There is no project ${project}.`}>Choose another one above.</Empty>
                ) : data.project.trainingModels.edges.length === 0 && modelPager.page === 1 ? (
                  <Empty title="No trainable models in this project yet.">
                    Create one with the training API (<code>POST /training/v1/preview/models</code>, as ART&apos;s <code>TrainableModel.register</code> does) or the{' '}
                    <code>createTrainingModel</code> mutation.
                  </Empty>
                ) : (
                  <DataTable caption="Trainable models" columns={modelColumns} connection={data.project.trainingModels} pager={modelPager} rowKey={(model) => model.id} />
                )
              }
            </QueryState>
          </section>
          <section aria-labelledby="jobs-heading" className="section card">
            <div className="card-header">
              <h2 id="jobs-heading">Jobs</h2>
              <span className="muted">newest first · open a job for its curves and event log</span>
            </div>
            <QueryState result={jobs} loadingLabel="Loading jobs…">
              {(data) =>
                !data.project ? null : data.project.trainingJobs.edges.length === 0 && jobPager.page === 1 ? (
                  <Empty title="No training jobs yet.">
                    Submit one with <code>POST /training/v1/preview/training-jobs</code> (RL) or <code>/sft-training-jobs</code> (SFT).
                  </Empty>
                ) : (
                  <DataTable caption="Training jobs" columns={jobColumns} connection={data.project.trainingJobs} pager={jobPager} rowKey={(job) => job.id} />
                )
              }
            </QueryState>
          </section>
        </>
      )}
    </>
  );
}
