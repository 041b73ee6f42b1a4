import type { Kysely } from 'kysely';
import { NotFoundError } from '../../../platform/errors.js';
import { validateOrThrow } from '../../../platform/validation.js';
import type { TracingDatabase } from '../db/database.js';
import { digestOfBytes, digestOfJson, parseProjectId } from '../refs.js';
import type { Writer } from '../call/call.service.js';
import { ObjCreateBody, TableCreateBody } from './object.schemas.js';
import { objectStore } from './object.store.js';
import { compileQueryRequest, type SortByInput } from '../query/query-request.js';
import { objectSortFields } from './object-fields.js';

/** Largest file `/file/create` accepts. */
export const MAX_FILE_BYTES = 32 * 1024 * 1024;

/** Objects, tables and files: content-addressed, so writing the same content twice returns the same digest. */
export class ObjectService {
  constructor(private readonly db: Kysely<TracingDatabase>) {}

  async createObject(writer: Writer, body: unknown): Promise<{ digest: string; object_id: string }> {
    const { obj } = validateOrThrow(ObjCreateBody, body, 'body');
    writer.assertWriter(parseProjectId(obj.project_id)!.entity);
    const val = obj.val ?? null;
    const digest = digestOfJson(val);
    await this.db.transaction().execute(async (trx) => {
      await objectStore.lockObject(trx, obj.project_id, obj.object_id);
      if (await objectStore.findVersion(trx, obj.project_id, obj.object_id, digest)) return;
      await objectStore.insertObject(trx, {
        project_id: obj.project_id,
        object_id: obj.object_id,
        digest,
        version_index: await objectStore.nextVersionIndex(trx, obj.project_id, obj.object_id),
        kind: isOp(val) ? 'op' : 'object',
        base_object_class: obj.builtin_object_class ?? baseObjectClassOf(val),
        val,
        wb_user_id: obj.wb_user_id ?? writer.userId,
      });
    });
    return { digest, object_id: obj.object_id };
  }

  async createTable(writer: Writer, body: unknown): Promise<{ digest: string; row_digests: string[] }> {
    const { table } = validateOrThrow(TableCreateBody, body, 'body');
    writer.assertWriter(parseProjectId(table.project_id)!.entity);
    const rows = table.rows.map((val) => ({ digest: digestOfJson(val), val }));
    const rowDigests = rows.map((row) => row.digest);
    const digest = digestOfJson(rowDigests);
    await this.db.transaction().execute((trx) => objectStore.insertTable(trx, table.project_id, digest, rows));
    return { digest, row_digests: rowDigests };
  }

  async createFile(writer: Writer, projectId: string, content: Buffer): Promise<string> {
    writer.assertWriter(parseProjectId(projectId)!.entity);
    const digest = digestOfBytes(content);
    await objectStore.insertFile(this.db, projectId, digest, content);
    return digest;
  }

  async readFile(projectId: string, digest: string): Promise<Buffer> {
    const content = await objectStore.readFile(this.db, projectId, digest);
    if (!content) throw new NotFoundError(`File ${digest} not found`);
    return content;
  }

  readObject = (projectId: string, objectId: string, digest: string) => objectStore.readObject(this.db, projectId, objectId, digest);
  /** `sortBy` (object_id, created_at) comes before the name and version order; another field is a 422. */
  queryObjects(projectId: string, filter: Parameters<typeof objectStore.queryObjects>[2], limit: number, offset: number, sortBy: SortByInput[] | null = null) {
    const { sort } = compileQueryRequest(objectSortFields, null, sortBy);
    return objectStore.queryObjects(this.db, projectId, filter, limit, offset, sort);
  }

  async tableRows(projectId: string, digest: string, rowDigests: string[] | null, limit: number, offset: number) {
    if (!(await objectStore.tableExists(this.db, projectId, digest))) throw new NotFoundError(`Table ${digest} not found`);
    return objectStore.tableRows(this.db, projectId, digest, rowDigests, limit, offset);
  }
}

function isOp(val: unknown): boolean {
  const v = val as { _type?: unknown; weave_type?: { type?: unknown } } | null;
  return !!v && typeof v === 'object' && v._type === 'CustomWeaveType' && v.weave_type?.type === 'Op';
}

function baseObjectClassOf(val: unknown): string | null {
  const v = val as { _class_name?: unknown; _bases?: unknown } | null;
  if (!v || typeof v !== 'object') return null;
  if (Array.isArray(v._bases) && v._bases.length > 0) {
    const bases = v._bases.filter((base): base is string => typeof base === 'string' && base !== 'Object' && base !== 'BaseModel');
    if (bases.length > 0) return typeof v._class_name === 'string' && bases.length === 0 ? v._class_name : bases[0]!;
  }
  return typeof v._class_name === 'string' ? v._class_name : null;
}
