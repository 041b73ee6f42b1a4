import type { SortState } from '../../components/DataTable';
import type { CallSearch, TracesPageQueryVariables } from '../../graphql/generated';

/**
 * What the traces list shows, as its URL holds it (so a filtered list can be linked and reloaded), and the three
 * forms the server takes it in: the GraphQL variables of the page, and the body of POST /traces/calls/export (Weave's
 * wire names). The server validates all of it; the page only shapes it.
 */
export interface TracesParams {
  project: string;
  /** Full-text words of inputs and outputs. */
  text: string;
  op: string;
  status: string;
  rootsOnly: boolean;
  /** `datetime-local` values (the reader's time zone). */
  from: string;
  to: string;
  attributeKey: string;
  attributeValue: string;
  /** An emoji, `*` for any reaction, or empty. */
  reaction: string;
  /** A scorer name, `*` for any, or empty. */
  scorer: string;
  sort: SortState;
  pageSize: number;
}

export const PAGE_SIZES = [25, 50, 100, 200] as const;
export const STATUSES = ['success', 'error', 'running', 'descendant_error'] as const;

export function readParams(search: URLSearchParams, project: string): TracesParams {
  const [sortField, sortDirection] = (search.get('sort') ?? 'started_at:DESC').split(':');
  const size = Number(search.get('size'));
  return {
    project,
    text: search.get('q') ?? '',
    op: search.get('op') ?? '',
    status: search.get('status') ?? '',
    rootsOnly: search.get('roots') !== 'all',
    from: search.get('from') ?? '',
    to: search.get('to') ?? '',
    attributeKey: search.get('attr') ?? '',
    attributeValue: search.get('attrValue') ?? '',
    reaction: search.get('reaction') ?? '',
    scorer: search.get('scorer') ?? '',
    sort: { field: sortField || 'started_at', direction: sortDirection === 'ASC' ? 'ASC' : 'DESC' },
    pageSize: (PAGE_SIZES as readonly number[]).includes(size) ? size : PAGE_SIZES[0],
  };
}

/** The URL parameters of `params` (defaults left out). */
export function toUrlParams(params: TracesParams): Record<string, string | null> {
  return {
    project: params.project,
    q: params.text || null,
    op: params.op || null,
    status: params.status || null,
    roots: params.rootsOnly ? null : 'all',
    from: params.from || null,
    to: params.to || null,
    attr: params.attributeKey || null,
    attrValue: params.attributeKey ? params.attributeValue : null,
    reaction: params.reaction || null,
    scorer: params.scorer || null,
    sort: `${params.sort.field}:${params.sort.direction}`,
    size: params.pageSize === PAGE_SIZES[0] ? null : String(params.pageSize),
  };
}

/** Whether anything narrows the list (the empty state says "no match" rather than "nothing yet"). */
export function isFiltered(params: TracesParams): boolean {
  return Boolean(params.text || params.op || params.status || params.from || params.to || params.attributeKey || params.reaction || params.scorer);
}

const isoOf = (local: string) => (local ? new Date(local).toISOString() : null);

/** The list's CallSearch (GraphQL form); null when nothing is asked. */
export function toSearch(params: TracesParams): CallSearch | null {
  const search: CallSearch = {
    text: params.text || null,
    startedAfter: isoOf(params.from),
    startedBefore: isoOf(params.to),
    attributes: params.attributeKey ? [{ key: params.attributeKey, value: params.attributeValue }] : null,
    reaction: params.reaction || null,
    scorer: params.scorer || null,
  };
  return Object.values(search).some((value) => value !== null) ? search : null;
}

type Operand = NonNullable<NonNullable<TracesPageQueryVariables['query']>['expr']['and']>[number];

/** The Weave query of the op-name and status filters (GraphQL's typed form). */
export function toQuery(params: TracesParams): TracesPageQueryVariables['query'] {
  const operands: Operand[] = [];
  if (params.op) {
    operands.push({
      or: [
        { contains: { input: { getField: 'summary.weave.trace_name' }, substr: { literal: params.op }, caseInsensitive: true } },
        { contains: { input: { getField: 'op_name' }, substr: { literal: params.op }, caseInsensitive: true } },
      ],
    });
  }
  if (params.status) operands.push({ eq: [{ getField: 'summary.weave.status' }, { literal: params.status }] });
  return operands.length > 0 ? { expr: { and: operands } } : null;
}

/** The same Weave query in its wire form (`$expr`), for the export route. */
function toWireQuery(params: TracesParams): Record<string, unknown> | null {
  const operands: unknown[] = [];
  if (params.op) {
    operands.push({
      $or: ['summary.weave.trace_name', 'op_name'].map((field) => ({
        $contains: { input: { $getField: field }, substr: { $literal: params.op }, case_insensitive: true },
      })),
    });
  }
  if (params.status) operands.push({ $eq: [{ $getField: 'summary.weave.status' }, { $literal: params.status }] });
  return operands.length > 0 ? { $expr: { $and: operands } } : null;
}

/** What the list selects, in createDatasetFromCalls' form: its filter, its query (wire form) and its search. */
export interface DatasetSelection {
  filter: { traceRootsOnly: boolean } | null;
  query: Record<string, unknown> | null;
  search: CallSearch | null;
}

/**
 * The list's selection for "add every matching call to a dataset", or null when the list selects every call (the
 * server refuses a selection without a condition rather than take a whole project).
 */
export function toDatasetSelection(params: TracesParams): DatasetSelection | null {
  const selection = { filter: params.rootsOnly ? { traceRootsOnly: true } : null, query: toWireQuery(params), search: toSearch(params) };
  return selection.filter || selection.query || selection.search ? selection : null;
}

export type ExportFormat = 'jsonl' | 'csv';

/** POST /traces/calls/export's body: every call the list selects, in its order. */
export function toExportBody(params: TracesParams, format: ExportFormat): Record<string, unknown> {
  const search = toSearch(params);
  return {
    project_id: params.project,
    format,
    filter: params.rootsOnly ? { trace_roots_only: true } : null,
    query: toWireQuery(params),
    search: search && {
      text: search.text,
      started_after: search.startedAfter,
      started_before: search.startedBefore,
      attributes: search.attributes,
      reaction: search.reaction,
      scorer: search.scorer,
    },
    sort_by: [{ field: params.sort.field, direction: params.sort.direction === 'ASC' ? 'asc' : 'desc' }],
  };
}
