import type { Kysely } from 'kysely';
import { NotFoundError, ValidationFailedError } from '../../../platform/errors.js';
import { validateOrThrow } from '../../../platform/validation.js';
import type { CallService, Writer } from '../call/call.service.js';
import { CallFilterInput } from '../call/call.inputs.js';
import type { CallsFilterInput } from '../call/call.store.js';
import type { TracingDatabase } from '../db/database.js';
import { objectStore } from '../object/object.store.js';
import type { ObjectService } from '../object/object.service.js';
import { MAX_DATASET_CALLS, DatasetFromCallsSchema, DatasetRowEditSchema, type DatasetFromCalls } from './dataset.schemas.js';
import { datasetStore, type CallFields } from './dataset.store.js';

/** A stored Dataset version. */
export interface DatasetVersion {
  objectId: string;
  digest: string;
  /** `v<N>` */
  version: string;
  /** `weave:///{entity}/{project}/object/{name}:{digest}`, what the Weave SDKs' ref(...).get() reads. */
  ref: string;
  rowCount: number;
}

const TABLE_REF = /^weave:\/\/\/([^/]+\/[^/]+)\/table\/([0-9A-Za-z]+)$/;

/**
 * Datasets built from traces, stored exactly as the Weave SDKs publish a `weave.Dataset`: the rows as a table
 * (/table/create) and a new version of the object `{_type: "Dataset", _class_name: "Dataset", _bases: ["Object",
 * "BaseModel"], name, description, rows: "weave:///{project}/table/{digest}"}` (/obj/create), so the SDKs'
 * `ref('name:v1').get()` and the Datasets page read them like any other dataset.
 */
export class DatasetService {
  constructor(
    private readonly db: Kysely<TracingDatabase>,
    private readonly objects: ObjectService,
    private readonly calls: CallService,
  ) {}

  async fromCalls(writer: Writer, body: unknown): Promise<DatasetVersion> {
    const input = validateOrThrow(DatasetFromCallsSchema, body, 'body');
    const projectId = input.project_id;
    writer.assertWriter(projectId.split('/')[0]!);
    const calls = await this.selectCalls(input);
    const scorers = [...new Set(input.columns.filter((column) => column.source.startsWith('feedback.')).map((column) => column.source.slice('feedback.'.length)))];
    const scores = await datasetStore.latestScores(this.db, projectId, calls.map((call) => call.id), scorers);
    const rows = calls.map((call) => Object.fromEntries(input.columns.map((column) => [column.name, valueOf(call, column.source, scores.get(call.id))])));
    const previous = input.append ? await this.latest(projectId, input.dataset) : null;
    const before = previous ? await this.rowsOf(projectId, previous.val) : [];
    return this.save(writer, projectId, input.dataset, [...before, ...rows], input.description ?? (previous?.val as { description?: string } | undefined)?.description ?? null);
  }

  /** Sets columns of one row and saves the result as the dataset's next version (the edited version stays as it was). */
  async editRow(writer: Writer, body: unknown): Promise<DatasetVersion> {
    const input = validateOrThrow(DatasetRowEditSchema, body, 'body');
    writer.assertWriter(input.project_id.split('/')[0]!);
    const found = await objectStore.readObject(this.db, input.project_id, input.dataset, input.version ?? 'latest');
    if (!found || !isDataset(found.val)) throw new NotFoundError(`No Dataset ${input.dataset}:${input.version ?? 'latest'} in ${input.project_id}`);
    const rows = await this.rowsOf(input.project_id, found.val);
    if (input.row_index >= rows.length) {
      throw new ValidationFailedError([{ loc: ['body', 'row_index'], msg: `The version has ${rows.length} rows`, type: 'value_error' }]);
    }
    rows[input.row_index] = { ...rows[input.row_index], ...input.values };
    return this.save(writer, input.project_id, input.dataset, rows, (found.val as { description?: string | null }).description ?? null);
  }

  /** A Dataset version (`latest`, `v<N>` or a digest) with its rows; null when the project has no such Dataset version. */
  async readVersion(projectId: string, name: string, version: string): Promise<(DatasetVersion & { rows: Record<string, unknown>[] }) | null> {
    const found = await objectStore.readObject(this.db, projectId, name, version);
    if (!found || !isDataset(found.val)) return null;
    const rows = await this.rowsOf(projectId, found.val);
    const ref = `weave:///${projectId}/object/${name}:${found.digest}`;
    return { objectId: name, digest: found.digest, version: `v${found.version_index}`, ref, rowCount: rows.length, rows };
  }

  /**
   * The calls by ids, or every call the traces list's search, filter and query select — read as the list reads them
   * (CallService.search: one validation, one compilation of the three), oldest first, at most `limit`.
   */
  private async selectCalls(input: DatasetFromCalls): Promise<CallFields[]> {
    const hasIds = input.call_ids != null;
    const selectors = (['search', 'filter', 'query'] as const).filter((key) => input[key] != null);
    if (hasIds === selectors.length > 0) {
      throw new ValidationFailedError([
        { loc: ['body', hasIds ? selectors[0]! : 'call_ids'], msg: 'Give either call_ids or a search, filter or query, not both and not neither', type: 'value_error' },
      ]);
    }
    if (input.call_ids) return this.callsByIds(input.project_id, input.call_ids, ['body', 'call_ids']);
    // Empty selectors would take every call of the project: that has to be asked for with a condition.
    if (!selectors.some((key) => Object.values(input[key] as object).some((value) => value !== null && value !== undefined))) {
      throw new ValidationFailedError([{ loc: ['body', selectors[0]!], msg: 'The search selects nothing: give at least one condition', type: 'value_error' }]);
    }
    const selected = await this.calls.search(
      input.project_id,
      // The list's form of the filter (CallsFilterInput); search and query are read in wire form.
      { search: input.search, filter: input.filter ? (CallFilterInput.fromWire(input.filter) as CallsFilterInput) : null, query: input.query, columns: ['id'] },
      input.limit ?? MAX_DATASET_CALLS,
      0,
    );
    if (selected.length === 0) throw new ValidationFailedError([{ loc: ['body', selectors[0]!], msg: 'No call matches the search', type: 'value_error' }]);
    return this.callsByIds(input.project_id, selected.map((call) => call.id), ['body', selectors[0]!]);
  }

  private async callsByIds(projectId: string, ids: readonly string[], at: (string | number)[]): Promise<CallFields[]> {
    const found = new Map((await datasetStore.callsByIds(this.db, projectId, ids)).map((call) => [call.id, call]));
    const missing = ids.findIndex((id) => !found.has(id));
    if (missing >= 0) throw new ValidationFailedError([{ loc: [...at, missing], msg: `No call ${ids[missing]} in ${projectId}`, type: 'value_error' }]);
    return ids.map((id) => found.get(id)!);
  }

  private async latest(projectId: string, name: string) {
    const found = await objectStore.readObject(this.db, projectId, name, 'latest');
    if (found && !isDataset(found.val)) {
      throw new ValidationFailedError([{ loc: ['body', 'dataset'], msg: `${name} is a ${(found.val as { _type?: string })?._type ?? 'object'}, not a Dataset`, type: 'value_error' }]);
    }
    return found ?? null;
  }

  /** A dataset version's rows, read from its table (rows given inline are taken as they are). */
  private async rowsOf(projectId: string, val: unknown): Promise<Record<string, unknown>[]> {
    const rows = (val as { rows?: unknown }).rows;
    if (Array.isArray(rows)) return rows as Record<string, unknown>[];
    const match = typeof rows === 'string' ? TABLE_REF.exec(rows) : null;
    if (!match) return [];
    const stored = await this.objects.tableRows(match[1]!, match[2]!, null, Number.MAX_SAFE_INTEGER, 0);
    return stored.map((row) => row.val as Record<string, unknown>);
  }

  private async save(writer: Writer, projectId: string, name: string, rows: Record<string, unknown>[], description: string | null): Promise<DatasetVersion> {
    const table = await this.objects.createTable(writer, { table: { project_id: projectId, rows } });
    const val = {
      _type: 'Dataset',
      _class_name: 'Dataset',
      _bases: ['Object', 'BaseModel'],
      name,
      description,
      rows: `weave:///${projectId}/table/${table.digest}`,
    };
    const { digest } = await this.objects.createObject(writer, { obj: { project_id: projectId, object_id: name, val } });
    const stored = await objectStore.readObject(this.db, projectId, name, digest);
    return { objectId: name, digest, version: `v${stored!.version_index}`, ref: `weave:///${projectId}/object/${name}:${digest}`, rowCount: rows.length };
  }
}

function isDataset(val: unknown): boolean {
  return !!val && typeof val === 'object' && (val as { _type?: unknown })._type === 'Dataset';
}

/** A column's value in one call (null where the call lacks the path). */
function valueOf(call: CallFields, source: string, scores: Map<string, unknown> | undefined): unknown {
  if (source === 'id') return call.id;
  if (source.startsWith('feedback.')) return scores?.get(source.slice('feedback.'.length)) ?? null;
  const [root, ...path] = source.split('.');
  let value: unknown = root === 'inputs' ? call.inputs : root === 'output' ? call.output : call.attributes;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return null;
    value = Array.isArray(value) && /^\d+$/.test(key) ? value[Number(key)] : (value as Record<string, unknown>)[key];
  }
  return value ?? null;
}
