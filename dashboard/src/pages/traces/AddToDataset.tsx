import { useState, type FormEvent } from 'react';
import { useMutation } from 'urql';
import { FieldError, formErrors, invalidProps, NO_ERRORS, type FormErrors } from '../../components/FieldErrors';
import { InlineError } from '../../components/States';
import { TracesAddToDatasetDocument } from '../../graphql/generated';
import { formatNumber } from '../../components/Format';
import { Link } from '../../router';
import type { DatasetSelection } from './traces-params';

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

/** The list's matching calls: how many (counted up to `countAtMost`) and the selection that takes them. */
export interface MatchingCalls {
  count: number;
  countAtMost: number;
  selection: DatasetSelection;
}

/** The most calls one request turns into rows (the server's MAX_DATASET_CALLS): the oldest of them are taken. */
const MAX_DATASET_CALLS = 10_000;

/**
 * Adds calls of the traces list to a Weave Dataset (createDatasetFromCalls): the ticked calls, or every call the list's
 * filters match (sent as the list's filter, query and search, so the server selects them; oldest first, at most
 * 10,000) — as a new version of these rows only, or the latest version's rows followed by these. The server validates
 * everything; its issues are shown at the field they name, and a saved version links to the Datasets page.
 */
export function AddToDataset({
  projectId,
  callIds,
  matching,
  onClose,
}: {
  projectId: string;
  callIds: readonly string[];
  matching: MatchingCalls | null;
  onClose: () => void;
}) {
  const [allMatching, setAllMatching] = useState(callIds.length === 0 && matching !== null);
  const [dataset, setDataset] = useState('');
  const [append, setAppend] = useState(false);
  const [columns, setColumns] = useState<ColumnDraft[]>(() => DEFAULT_COLUMNS.map((column) => ({ ...column })));
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [saved, setSaved] = useState<Saved | null>(null);
  const [result, create] = useMutation(TracesAddToDatasetDocument);

  const fields = ['dataset', 'callIds', 'filter', 'query', 'search', 'columns', ...columns.flatMap((_, index) => [`columns.${index}.name`, `columns.${index}.source`])];
  const setColumn = (index: number, change: Partial<ColumnDraft>) => setColumns((current) => current.map((column, at) => (at === index ? { ...column, ...change } : column)));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setSaved(null);
    const calls = allMatching && matching ? matching.selection : { callIds: [...callIds] };
    const outcome = await create({ input: { projectId, dataset: dataset.trim(), append, columns, ...calls } });
    setErrors(outcome.error ? formErrors(outcome.error, fields) : NO_ERRORS);
    if (outcome.data) setSaved(outcome.data.createDatasetFromCalls);
  };

  const [entity, project] = projectId.split('/');
  return (
    <section className="traces-dataset" aria-labelledby="traces-dataset-heading">
      <h3 id="traces-dataset-heading">Add calls to a dataset</h3>
      <form onSubmit={(event) => void submit(event)} aria-label="Add calls to a dataset">
        <fieldset className="traces-dataset-mode">
          <legend>Calls</legend>
          <label>
            <input type="radio" name="traces-dataset-calls" checked={!allMatching} disabled={callIds.length === 0} onChange={() => setAllMatching(false)} /> The{' '}
            {callIds.length} selected {callIds.length === 1 ? 'call' : 'calls'}
          </label>
          <label>
            <input type="radio" name="traces-dataset-calls" checked={allMatching} disabled={!matching} onChange={() => setAllMatching(true)} />{' '}
            {matching ? describeMatching(matching) : 'Every call the filters match (set a filter first)'}
          </label>
        </fieldset>
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
        <FieldError id="traces-dataset-calls" messages={[...(errors.byField.callIds ?? []), ...(errors.byField.filter ?? []), ...(errors.byField.query ?? []), ...(errors.byField.search ?? [])]} />
        <div className="traces-dataset-actions">
          <button type="submit" className="button button-primary" disabled={result.fetching || (allMatching ? !matching : callIds.length === 0)}>
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

/** "All 40 matching calls", or "The oldest 10,000 of more than 10,000 matching calls". */
function describeMatching({ count, countAtMost }: MatchingCalls): string {
  if (count > countAtMost) return `The oldest ${formatNumber(MAX_DATASET_CALLS)} of more than ${formatNumber(countAtMost)} matching calls`;
  if (count > MAX_DATASET_CALLS) return `The oldest ${formatNumber(MAX_DATASET_CALLS)} of ${formatNumber(count)} matching calls`;
  return count === 1 ? 'The 1 matching call' : `All ${formatNumber(count)} matching calls`;
}
