import { useCallback, useEffect, useMemo, useState } from 'react';
import { callName } from '../Home';
import type { TraceRow, TracesColumn } from './traces-columns';

/** The calls ticked in the traces list, in the order they were ticked (a dataset's rows follow it); kept across pages. */
export interface CallSelection {
  ids: string[];
  has(id: string): boolean;
  toggle(id: string): void;
  /** Ticks every id given (or unticks them all when `selected` is false). */
  setAll(ids: readonly string[], selected: boolean): void;
}

/** A new project starts with nothing selected: a call id means nothing in another project. */
export function useCallSelection(project: string | null): CallSelection {
  const [ids, setIds] = useState<string[]>([]);
  useEffect(() => setIds([]), [project]);
  const toggle = useCallback((id: string) => setIds((current) => (current.includes(id) ? current.filter((each) => each !== id) : [...current, id])), []);
  const setAll = useCallback(
    (page: readonly string[], selected: boolean) =>
      setIds((current) => (selected ? [...current, ...page.filter((id) => !current.includes(id))] : current.filter((id) => !page.includes(id)))),
    [],
  );
  return useMemo(() => {
    const set = new Set(ids);
    return { ids, has: (id: string) => set.has(id), toggle, setAll };
  }, [ids, toggle, setAll]);
}

/** The first column of the list: one checkbox per call, named after the call so a screen reader knows which. */
export function selectColumn(selection: CallSelection): TracesColumn {
  return {
    key: 'select',
    header: 'Select',
    className: 'traces-select',
    render: (call: TraceRow) => (
      <input type="checkbox" checked={selection.has(call.id)} onChange={() => selection.toggle(call.id)} aria-label={`Select call ${callName(call)} (${call.id})`} />
    ),
  };
}

/** "Select all on this page": ticked when every call of the page is, mixed when some are. */
export function SelectPage({ selection, pageIds }: { selection: CallSelection; pageIds: readonly string[] }) {
  const ticked = pageIds.filter((id) => selection.has(id)).length;
  const all = pageIds.length > 0 && ticked === pageIds.length;
  return (
    <label className="traces-select-page">
      <input
        type="checkbox"
        checked={all}
        ref={(input) => {
          if (input) input.indeterminate = ticked > 0 && !all;
        }}
        disabled={pageIds.length === 0}
        onChange={() => selection.setAll(pageIds, !all)}
      />{' '}
      Select all on this page
    </label>
  );
}
