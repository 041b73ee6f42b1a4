import { useState, type FormEvent } from 'react';
import { useMutation } from 'urql';
import { InlineError } from '../../components/States';
import { DatasetEditRowDocument } from '../../graphql/generated';

/**
 * Corrects one row of a dataset version (by default its `expected` column, the answer a fine-tune learns): saved as
 * the dataset's next version (editDatasetRow), which the page then shows.
 */
export function EditRow({ entity, project, dataset, version, onSaved }: { entity: string; project: string; dataset: string; version: number; onSaved: (digest: string) => void }) {
  const [row, setRow] = useState('0');
  const [column, setColumn] = useState('expected');
  const [value, setValue] = useState('');
  const [saved, save] = useMutation(DatasetEditRowDocument);

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    const outcome = await save({ input: { projectId: `${entity}/${project}`, dataset, version: `v${version}`, rowIndex: Number(row), values: { [column]: value } } });
    const digest = outcome.data?.editDatasetRow.digest;
    if (digest) onSaved(digest);
  };

  return (
    <>
      <h3 className="weave-subheading">Correct a row</h3>
      <p className="hint">Sets one column of one row (the expected answer, by default); saved as the dataset&apos;s next version.</p>
      <form className="filters" onSubmit={(event) => void onSubmit(event)} aria-label={`Correct a row of ${dataset} v${version}`}>
        <div className="field">
          <label htmlFor="edit-row-index">Row #</label>
          <input id="edit-row-index" type="number" min={0} value={row} onChange={(event) => setRow(event.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="edit-row-column">Column</label>
          <input id="edit-row-column" value={column} onChange={(event) => setColumn(event.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="edit-row-value">New value</label>
          <input id="edit-row-value" value={value} onChange={(event) => setValue(event.target.value)} />
        </div>
        <button type="submit" className="button" disabled={saved.fetching || value === ''}>
          Save as a new version
        </button>
      </form>
      {saved.error ? <InlineError error={saved.error} /> : null}
    </>
  );
}
