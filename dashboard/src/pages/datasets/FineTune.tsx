import { useEffect, useState, type FormEvent } from 'react';
import { useMutation, useQuery } from 'urql';
import { InlineError } from '../../components/States';
import { DatasetFineTuneJobDocument, DatasetFineTuneModelDocument, DatasetFineTuneStartDocument, DatasetPromoteCheckpointDocument } from '../../graphql/generated';
import './fine-tune.css';

/** How often a running job is read again. */
const POLL_MS = 1500;
const FINISHED = new Set(['SUCCEEDED', 'FAILED', 'CANCELLED']);

interface Started {
  jobId: string;
  modelId: string;
  modelName: string;
}

/**
 * Fine-tune → promote from a dataset version: names a model (created on the embedded base model, or reused), starts
 * an SFT job from the version (createSftTrainingJobFromDataset: the version exported as train.jsonl), follows it, and
 * promotes one of its checkpoints to `production`, after which inference serves `{entity}/{project}/{model}:production`.
 */
export function FineTune({ entity, project, dataset, version }: { entity: string; project: string; dataset: string; version: number }) {
  const [modelName, setModelName] = useState(`${dataset}-tuned`);
  const [promptColumn, setPromptColumn] = useState('question');
  const [completionColumn, setCompletionColumn] = useState('expected');
  const [started, setStarted] = useState<Started | null>(null);
  const [modelResult, createModel] = useMutation(DatasetFineTuneModelDocument);
  const [startResult, start] = useMutation(DatasetFineTuneStartDocument);

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    const model = await createModel({ input: { entity, project, name: modelName, baseModel: 'trellis-tiny', returnExisting: true } });
    const created = model.data?.createTrainingModel;
    if (!created) return;
    const job = await start({
      input: { modelId: created.id, dataset: { entity, project, dataset, version: `v${version}`, promptColumn, completionColumn } },
    });
    const id = job.data?.createSftTrainingJobFromDataset.id;
    if (id) setStarted({ jobId: id, modelId: created.id, modelName: created.name });
  };

  return (
    <section className="fine-tune" aria-labelledby="fine-tune-heading">
      <h3 id="fine-tune-heading" className="weave-subheading">
        Fine-tune on v{version}
      </h3>
      <p className="hint">
        Trains a model on the embedded base model with this version&apos;s rows as chat examples: the prompt column as the user&apos;s turn, the
        completion column as the answer to learn.
      </p>
      <form className="filters" onSubmit={(event) => void onSubmit(event)} aria-label={`Fine-tune on ${dataset} v${version}`}>
        <div className="field">
          <label htmlFor="fine-tune-model">Model name</label>
          <input id="fine-tune-model" value={modelName} onChange={(event) => setModelName(event.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="fine-tune-prompt">Prompt column</label>
          <input id="fine-tune-prompt" value={promptColumn} onChange={(event) => setPromptColumn(event.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="fine-tune-completion">Completion column</label>
          <input id="fine-tune-completion" value={completionColumn} onChange={(event) => setCompletionColumn(event.target.value)} />
        </div>
        <button type="submit" className="button button-primary" disabled={modelResult.fetching || startResult.fetching}>
          Fine-tune
        </button>
      </form>
      {modelResult.error ? <InlineError error={modelResult.error} /> : null}
      {startResult.error ? <InlineError error={startResult.error} /> : null}
      {started ? <JobProgress key={started.jobId} entity={entity} project={project} started={started} /> : null}
    </section>
  );
}

function JobProgress({ entity, project, started }: { entity: string; project: string; started: Started }) {
  const [result, reexecute] = useQuery({ query: DatasetFineTuneJobDocument, variables: { id: started.jobId, modelId: started.modelId }, requestPolicy: 'network-only' });
  const [promoted, promote] = useMutation(DatasetPromoteCheckpointDocument);
  const status = result.data?.trainingJob.status;
  useEffect(() => {
    if (!status || FINISHED.has(status)) return;
    const timer = setTimeout(() => reexecute({ requestPolicy: 'network-only' }), POLL_MS);
    return () => clearTimeout(timer);
  }, [status, result.data, reexecute]);
  const checkpoints = result.data?.trainingModel.checkpoints.nodes ?? [];
  const served = `${entity}/${project}/${started.modelName}:production`;
  return (
    <div className="fine-tune-job" data-testid="fine-tune-job">
      <p role="status">
        Job <code>{started.jobId.slice(0, 8)}</code> of model <strong>{started.modelName}</strong>: {status ?? 'starting'}
        {result.data?.trainingJob.errorMessage ? ` — ${result.data.trainingJob.errorMessage}` : ''}
      </p>
      {status === 'SUCCEEDED' ? (
        <ul className="fine-tune-checkpoints" aria-label="Checkpoints of the model">
          {checkpoints.map((checkpoint) => (
            <li key={checkpoint.step}>
              <span>
                Step {checkpoint.step} <span className="muted">({checkpoint.aliases.join(', ')})</span>
              </span>
              {checkpoint.aliases.includes('production') ? (
                <span data-testid="serving">
                  Serving as <code>{served}</code>
                </span>
              ) : (
                <button
                  type="button"
                  className="button"
                  disabled={promoted.fetching}
                  onClick={() =>
                    void promote({ modelId: started.modelId, input: { step: checkpoint.step, alias: 'production' } }).then(() => reexecute({ requestPolicy: 'network-only' }))
                  }
                >
                  Promote step {checkpoint.step} to production
                </button>
              )}
            </li>
          ))}
        </ul>
      ) : null}
      {promoted.error ? <InlineError error={promoted.error} /> : null}
      {result.error ? <InlineError error={result.error} /> : null}
    </div>
  );
}
