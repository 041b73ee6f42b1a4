import { useEffect, useState, type FormEvent } from 'react';
import { PAGE_SIZES, STATUSES, type TracesParams } from './traces-params';

/** The text fields of the form: edited freely, applied together with Apply (or Enter). */
interface Draft {
  text: string;
  op: string;
  from: string;
  to: string;
  attributeKey: string;
  attributeValue: string;
  scorer: string;
}

const draftOf = (params: TracesParams): Draft => ({
  text: params.text,
  op: params.op,
  from: params.from,
  to: params.to,
  attributeKey: params.attributeKey,
  attributeValue: params.attributeValue,
  scorer: params.scorer,
});

const REACTIONS = [
  { value: '', label: 'Any' },
  { value: '*', label: 'Has a reaction' },
  { value: '👍', label: '👍' },
  { value: '👎', label: '👎' },
];

/**
 * The traces list's search and filters. Selects apply at once; text fields on Apply, so typing does not send a
 * query per key. Trimmed values; an attribute needs its key (a value alone filters nothing).
 */
export function TracesFilters({ params, filtered, onApply, onClear }: { params: TracesParams; filtered: boolean; onApply: (changes: Partial<TracesParams>) => void; onClear: () => void }) {
  const [draft, setDraft] = useState(() => draftOf(params));
  useEffect(() => setDraft(draftOf(params)), [params]);
  const edit = (field: keyof Draft) => (event: { target: { value: string } }) => setDraft((current) => ({ ...current, [field]: event.target.value }));
  const trimmed = (): Partial<TracesParams> => ({
    text: draft.text.trim(),
    op: draft.op.trim(),
    from: draft.from,
    to: draft.to,
    attributeKey: draft.attributeKey.trim(),
    attributeValue: draft.attributeValue.trim(),
    scorer: draft.scorer.trim(),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onApply(trimmed());
  };
  const applyNow = (changes: Partial<TracesParams>) => onApply({ ...trimmed(), ...changes });

  return (
    <form className="traces-filters" role="search" aria-label="Search and filter calls" onSubmit={submit}>
      <div className="field traces-search">
        <label htmlFor="filter-text">Search inputs and outputs</label>
        <input id="filter-text" type="search" value={draft.text} onChange={edit('text')} placeholder='words, "a phrase", -exclude' />
      </div>
      <div className="field">
        <label htmlFor="filter-op">Op name contains</label>
        <input id="filter-op" type="search" value={draft.op} onChange={edit('op')} placeholder="e.g. predict" />
      </div>
      <div className="field">
        <label htmlFor="filter-status">Status</label>
        <select id="filter-status" value={params.status} onChange={(event) => applyNow({ status: event.target.value })}>
          <option value="">Any</option>
          {STATUSES.map((value) => (
            <option key={value} value={value}>
              {value.replace('_', ' ')}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="filter-from">Started from</label>
        <input id="filter-from" type="datetime-local" step="1" value={draft.from} onChange={edit('from')} />
      </div>
      <div className="field">
        <label htmlFor="filter-to">Started before</label>
        <input id="filter-to" type="datetime-local" step="1" value={draft.to} onChange={edit('to')} />
      </div>
      <div className="field">
        <label htmlFor="filter-attribute-key">Attribute</label>
        <input id="filter-attribute-key" value={draft.attributeKey} onChange={edit('attributeKey')} placeholder="key, e.g. env" />
      </div>
      <div className="field">
        <label htmlFor="filter-attribute-value">Attribute value</label>
        <input id="filter-attribute-value" value={draft.attributeValue} onChange={edit('attributeValue')} placeholder="e.g. prod" />
      </div>
      <div className="field">
        <label htmlFor="filter-reaction">Reaction</label>
        <select id="filter-reaction" value={params.reaction} onChange={(event) => applyNow({ reaction: event.target.value })}>
          {REACTIONS.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="filter-scorer">Scored by</label>
        <input id="filter-scorer" value={draft.scorer} onChange={edit('scorer')} placeholder="scorer, or * for any" />
      </div>
      <div className="field field-check">
        <input id="filter-roots" type="checkbox" checked={params.rootsOnly} onChange={(event) => applyNow({ rootsOnly: event.target.checked })} />
        <label htmlFor="filter-roots">Trace roots only</label>
      </div>
      <div className="field">
        <label htmlFor="filter-page-size">Rows per page</label>
        <select id="filter-page-size" value={params.pageSize} onChange={(event) => applyNow({ pageSize: Number(event.target.value) })}>
          {PAGE_SIZES.map((size) => (
            <option key={size} value={size}>
              {size}
            </option>
          ))}
        </select>
      </div>
      <div className="traces-filter-actions">
        <button type="submit" className="button">
          Apply
        </button>
        {filtered ? (
          <button type="button" className="button button-quiet" onClick={onClear}>
            Clear filters
          </button>
        ) : null}
      </div>
    </form>
  );
}
