import { useState, type FormEvent } from 'react';
import { useMutation } from 'urql';
import { FieldError, formErrors, invalidProps, NO_ERRORS, type FormErrors } from '../../components/FieldErrors';
import { InlineError } from '../../components/States';
import { TracesAddToDatasetDocument } from '../../graphql/generated';
import { Link } from '../../router';

interface ColumnDraft {
  name: string;
  source: string;
}

/** What a dataset row usually needs from a call: its inputs, its output, and an `expected` answer to correct later. */
const DEFAULT_COLUMNS: readonly ColumnDraft[] = [
  { name: 'input', source: 'inputs' },
  { name: 'output', source: 'output' },
  { name: 'expected', source: 'output' },
];

interface Saved {
  objectId: string;
  digest: string;
  version: string;
  rowCount: number;
}

/**
 * Adds the selected calls of the traces list to a Weave Dataset (createDatasetFromCalls): a new version of these rows
 * only, or the latest version's rows followed by these. The server validates everything; its issues are shown at
 * the field they name, and a saved version links to the Datasets page.
 */
export function AddToDataset({ projectId, callIds, onClose }: { projectId: string; callIds: readonly string[]; onClose: () => void }) {
  const [dataset, setDataset] = useState('');
  const [append, setAppend] = useState(false);
  const [columns, setColumns] = useState<ColumnDraft[]>(() => DEFAULT_COLUMNS.map((column) => ({ ...column })));
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [saved, setSaved] = useState<Saved | null>(null);
  const [result, create] = useMutation(TracesAddToDatasetDocument);

  const fields = ['dataset', 'callIds', 'columns', ...columns.flatMap((_, index) => [`columns.${index}.name`, `columns.${index}.source`])];
  const setColumn = (index: number, change: Partial<ColumnDraft>) => setColumns((current) => current.map((column, at) => (at === index ? { ...column, ...change } : column)));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setSaved(null);
    const outcome = await create({ input: { projectId, dataset: dataset.trim(), append, callIds: [...callIds], columns } });
    setErrors(outcome.error ? formErrors(outcome.error, fields) : NO_ERRORS);
    if (outcome.data) setSaved(outcome.data.createDatasetFromCalls);
  };

  const [entity, project] = projectId.split('/');
  return (
    <section className="traces-dataset" aria-labelledby="traces-dataset-heading">
      <h3 id="traces-dataset-heading">
        Add {callIds.length} selected {callIds.length === 1 ? 'call' : 'calls'} to a dataset
      </h3>
      <form onSubmit={(event) => void submit(event)} aria-label="Add the selected calls to a dataset">
        <div className="field">
          <label htmlFor="traces-dataset-name">Dataset name</label>
          <input id="traces-dataset-name" value={dataset} onChange={(event) => setDataset(event.target.value)} placeholder="e.g. support-answers" autoComplete="off" spellCheck={false} {...invalidProps('traces-dataset-name', errors.byField.dataset)} />
          <FieldError id="traces-dataset-name" messages={errors.byField.dataset} />
        </div>
        <fieldset className="traces-dataset-mode">
          <legend>Version</legend>
          <label>
            <input type="radio" name="traces-dataset-mode" checked={!append} onChange={() => setAppend(false)} /> A new version of these rows only
          </label>
          <label>
            <input type="radio" name="traces-dataset-mode" checked={append} onChange={() => setAppend(true)} /> Append to the latest version
          </label>
        </fieldset>
        <fieldset className="traces-dataset-columns">
          <legend>Columns (source: inputs, output, inputs.&lt;path&gt;, output.&lt;path&gt;, attributes.&lt;path&gt;, feedback.&lt;scorer&gt; or id)</legend>
          {columns.map((column, index) => {
            const nameId = `traces-dataset-column-${index}-name`;
            const sourceId = `traces-dataset-column-${index}-source`;
            const nameErrors = errors.byField[`columns.${index}.name`];
            const sourceErrors = [...(errors.byField[`columns.${index}.source`] ?? []), ...(index === 0 ? (errors.byField.columns ?? []) : [])];
            return (
              <div className="traces-dataset-column" key={index}>
                <div className="field">
                  <label htmlFor={nameId}>Column {index + 1} name</label>
                  <input id={nameId} value={column.name} onChange={(event) => setColumn(index, { name: event.target.value })} spellCheck={false} {...invalidProps(nameId, nameErrors)} />
                  <FieldError id={nameId} messages={nameErrors} />
                </div>
                <div className="field">
                  <label htmlFor={sourceId}>Column {index + 1} source</label>
                  <input id={sourceId} value={column.source} onChange={(event) => setColumn(index, { source: event.target.value })} spellCheck={false} {...invalidProps(sourceId, sourceErrors)} />
                  <FieldError id={sourceId} messages={sourceErrors} />
                </div>
                <button type="button" className="button button-small" onClick={() => setColumns((current) => current.filter((_, at) => at !== index))} aria-label={`Remove column ${index + 1} (${column.name || 'unnamed'})`}>
                  Remove
                </button>
              </div>
            );
          })}
          <button type="button" className="button button-small" onClick={() => setColumns((current) => [...current, { name: '', source: '' }])}>
            Add a column
          </button>
        </fieldset>
        <FieldError id="traces-dataset-calls" messages={errors.byField.callIds} />
        <div className="traces-dataset-actions">
          <button type="submit" className="button button-primary" disabled={result.fetching || callIds.length === 0}>
            {result.fetching ? 'Saving…' : 'Save to dataset'}
          </button>
          <button type="button" className="button" onClick={onClose}>
            Close
          </button>
        </div>
      </form>
      {errors.general.length ? <InlineError error={result.error} /> : null}
      {saved ? (
        <p className="notice" role="status">
          Saved {saved.objectId}:{saved.version} with {saved.rowCount} {saved.rowCount === 1 ? 'row' : 'rows'}.{' '}
          <Link to={`/datasets?project=${encodeURIComponent(`${entity}/${project}`)}&name=${encodeURIComponent(saved.objectId)}&version=${encodeURIComponent(saved.digest)}`}>
            Open {saved.objectId}:{saved.version} in Datasets
          </Link>
        </p>
      ) : null}
    </section>
  );
}
