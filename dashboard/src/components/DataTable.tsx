import { useCallback, useMemo, useState, type ReactNode } from 'react';

/**
 * A table over a Relay connection (edges/node/pageInfo, paged by the server with first/after) or a plain list
 * (sorted and paged here). Sorting: columns with `sortField` ask the server (`onSortChange`); columns with
 * `sortValue` sort the rows in the browser. Header buttons are keyboard-reachable and announce their order.
 */
export interface Column<T> {
  key: string;
  header: string;
  render: (row: T) => ReactNode;
  /** Sort by the server's field of this name (connection tables). */
  sortField?: string;
  /** Sort in the browser by this value (list tables). */
  sortValue?: (row: T) => string | number | null | undefined;
  align?: 'left' | 'right';
  className?: string;
}

export type SortDirection = 'ASC' | 'DESC';
export interface SortState {
  field: string;
  direction: SortDirection;
}

export interface ConnectionLike<T> {
  edges: { node: T }[];
  pageInfo: { hasNextPage: boolean; endCursor?: string | null };
}

/** Forward cursors of a connection, remembered so "Previous" can go back. */
export interface CursorPager {
  after: string | null;
  page: number;
  next(endCursor: string): void;
  previous(): void;
  reset(): void;
}

export function useCursorPager(): CursorPager {
  const [stack, setStack] = useState<(string | null)[]>([null]);
  const next = useCallback((endCursor: string) => setStack((current) => [...current, endCursor]), []);
  const previous = useCallback(() => setStack((current) => (current.length > 1 ? current.slice(0, -1) : current)), []);
  const reset = useCallback(() => setStack([null]), []);
  return { after: stack[stack.length - 1] ?? null, page: stack.length, next, previous, reset };
}

interface CommonProps<T> {
  caption: string;
  columns: Column<T>[];
  rowKey: (row: T) => string;
  empty?: ReactNode;
  onRowClick?: (row: T) => void;
  /** Marks rows (e.g. the selected one). */
  rowClassName?: (row: T) => string | undefined;
}

type Props<T> =
  | (CommonProps<T> & { connection: ConnectionLike<T>; pager: CursorPager; sort?: SortState; onSortChange?: (sort: SortState) => void; rows?: undefined; pageSize?: undefined })
  | (CommonProps<T> & { rows: readonly T[]; pageSize?: number; connection?: undefined; pager?: undefined; sort?: undefined; onSortChange?: undefined });

export function DataTable<T>(props: Props<T>) {
  const { caption, columns, rowKey, empty, onRowClick, rowClassName } = props;
  const [localSort, setLocalSort] = useState<SortState | null>(null);
  const [localPage, setLocalPage] = useState(0);

  const pageSize = props.pageSize ?? 25;
  const rows: readonly T[] = useMemo(() => {
    if (props.connection) return props.connection.edges.map((edge) => edge.node);
    let list = props.rows ?? [];
    const column = localSort ? columns.find((candidate) => candidate.key === localSort.field) : undefined;
    if (column?.sortValue && localSort) {
      const value = column.sortValue;
      const factor = localSort.direction === 'ASC' ? 1 : -1;
      list = [...list].sort((a, b) => {
        const left = value(a);
        const right = value(b);
        if (left === right) return 0;
        if (left === null || left === undefined) return 1;
        if (right === null || right === undefined) return -1;
        return (left < right ? -1 : 1) * factor;
      });
    }
    return list.slice(localPage * pageSize, (localPage + 1) * pageSize);
  }, [props.connection, props.rows, localSort, localPage, pageSize, columns]);

  const totalLocal = props.rows?.length ?? 0;
  const activeSort = props.connection ? props.sort : localSort;

  const toggleSort = (column: Column<T>) => {
    const field = props.connection ? column.sortField : column.key;
    if (!field) return;
    const direction: SortDirection = activeSort?.field === field && activeSort.direction === 'DESC' ? 'ASC' : 'DESC';
    if (props.connection) {
      props.onSortChange?.({ field, direction });
      props.pager.reset();
    } else {
      setLocalSort({ field, direction });
      setLocalPage(0);
    }
  };

  const sortable = (column: Column<T>) => (props.connection ? Boolean(column.sortField && props.onSortChange) : Boolean(column.sortValue));

  return (
    <div className="data-table">
      <div className="table-scroll">
        <table>
          <caption className="visually-hidden">{caption}</caption>
          <thead>
            <tr>
              {columns.map((column) => {
                const field = props.connection ? column.sortField : column.key;
                const sorted = activeSort && field && activeSort.field === field ? activeSort.direction : null;
                return (
                  <th
                    key={column.key}
                    scope="col"
                    className={column.align === 'right' ? 'align-right' : undefined}
                    aria-sort={sorted === 'ASC' ? 'ascending' : sorted === 'DESC' ? 'descending' : undefined}
                  >
                    {sortable(column) ? (
                      <button type="button" className="sort-button" onClick={() => toggleSort(column)}>
                        {column.header}
                        <span className="sort-indicator" aria-hidden="true">
                          {sorted === 'ASC' ? '▲' : sorted === 'DESC' ? '▼' : '↕'}
                        </span>
                      </button>
                    ) : (
                      column.header
                    )}
                  </th>
                );
              })}
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr
                key={rowKey(row)}
                className={[onRowClick ? 'clickable' : '', rowClassName?.(row) ?? ''].join(' ').trim() || undefined}
                onClick={onRowClick ? () => onRowClick(row) : undefined}
              >
                {columns.map((column) => (
                  <td key={column.key} className={[column.align === 'right' ? 'align-right' : '', column.className ?? ''].join(' ').trim() || undefined}>
                    {column.render(row)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {rows.length === 0 ? <div className="table-empty">{empty ?? 'Nothing here yet.'}</div> : null}
      {props.connection ? (
        <nav className="pager" aria-label={`${caption} pages`}>
          <button type="button" className="button" onClick={props.pager.previous} disabled={props.pager.page <= 1}>
            ← Previous
          </button>
          <span className="pager-status">Page {props.pager.page}</span>
          <button
            type="button"
            className="button"
            onClick={() => props.connection.pageInfo.endCursor && props.pager.next(props.connection.pageInfo.endCursor)}
            disabled={!props.connection.pageInfo.hasNextPage || !props.connection.pageInfo.endCursor}
          >
            Next →
          </button>
        </nav>
      ) : totalLocal > pageSize ? (
        <nav className="pager" aria-label={`${caption} pages`}>
          <button type="button" className="button" onClick={() => setLocalPage(localPage - 1)} disabled={localPage === 0}>
            ← Previous
          </button>
          <span className="pager-status">
            {localPage * pageSize + 1}–{Math.min(totalLocal, (localPage + 1) * pageSize)} of {totalLocal}
          </span>
          <button type="button" className="button" onClick={() => setLocalPage(localPage + 1)} disabled={(localPage + 1) * pageSize >= totalLocal}>
            Next →
          </button>
        </nav>
      ) : null}
    </div>
  );
}
