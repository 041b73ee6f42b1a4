import { sql, type Kysely, type Transaction } from 'kysely';
import type { ObjectsTable, TracingDatabase } from '../db/database.js';
import { orderByFields } from '../query/query-request.js';
import type { SortDirection } from '../query/query-sql.js';
import { objectSortFields } from './object-fields.js';

type Db = Kysely<TracingDatabase> | Transaction<TracingDatabase>;
export type ObjectRow = Omit<ObjectsTable, 'created_at'> & { created_at: Date; is_latest: boolean };

const withIsLatest = sql<boolean>`version_index = (select max(o2.version_index) from tracing.objects o2 where o2.project_id = objects.project_id and o2.object_id = objects.object_id)`;

/** Objects (versioned by content digest), tables (rows by digest) and files (bytes by digest). */
export const objectStore = {
  /** Serialises versioning of one object name, so two writers cannot take the same version index. */
  async lockObject(trx: Transaction<TracingDatabase>, projectId: string, objectId: string): Promise<void> {
    await sql`select pg_advisory_xact_lock(hashtext(${`tracing:obj:${projectId}/${objectId}`}))`.execute(trx);
  },

  async findVersion(db: Db, projectId: string, objectId: string, digest: string) {
    return db
      .selectFrom('objects')
      .select(['digest', 'version_index'])
      .where('project_id', '=', projectId)
      .where('object_id', '=', objectId)
      .where('digest', '=', digest)
      .executeTakeFirst();
  },

  async nextVersionIndex(db: Db, projectId: string, objectId: string): Promise<number> {
    const row = await db
      .selectFrom('objects')
      .select((eb) => eb.fn.max('version_index').as('v'))
      .where('project_id', '=', projectId)
      .where('object_id', '=', objectId)
      .executeTakeFirst();
    return row?.v === null || row?.v === undefined ? 0 : Number(row.v) + 1;
  },

  async insertObject(db: Db, row: Omit<ObjectsTable, 'created_at'>): Promise<void> {
    await db.insertInto('objects').values({ ...row, val: JSON.stringify(row.val) as never }).execute();
  },

  /** `digest` may be a digest, `latest` or `v<N>`. */
  async readObject(db: Db, projectId: string, objectId: string, digest: string): Promise<ObjectRow | undefined> {
    let query = db
      .selectFrom('objects')
      .selectAll()
      .select(withIsLatest.as('is_latest'))
      .where('project_id', '=', projectId)
      .where('object_id', '=', objectId);
    const version = /^v(\d+)$/.exec(digest);
    if (digest === 'latest') query = query.orderBy('version_index', 'desc').limit(1);
    else if (version) query = query.where('version_index', '=', Number(version[1]));
    else query = query.where('digest', '=', digest);
    return (await query.executeTakeFirst()) as ObjectRow | undefined;
  },

  async queryObjects(
    db: Db,
    projectId: string,
    filter: { objectIds?: string[] | null; latestOnly?: boolean | null; baseObjectClasses?: string[] | null; isOp?: boolean | null },
    limit: number,
    offset: number,
    sort: { field: string; direction: SortDirection }[] = [],
  ): Promise<ObjectRow[]> {
    let query = db.selectFrom('objects').selectAll().select(withIsLatest.as('is_latest')).where('project_id', '=', projectId);
    for (const term of orderByFields(objectSortFields, sort)) {
      query = query.orderBy(term.sql, (ob) => (term.direction === 'asc' ? ob.asc() : ob.desc()));
    }
    if (filter.objectIds?.length) query = query.where('object_id', 'in', filter.objectIds);
    if (filter.baseObjectClasses?.length) query = query.where('base_object_class', 'in', filter.baseObjectClasses);
    if (filter.isOp !== undefined && filter.isOp !== null) query = query.where('kind', filter.isOp ? '=' : '<>', 'op');
    if (filter.latestOnly) query = query.where(withIsLatest);
    return (await query.orderBy('object_id').orderBy('version_index').limit(limit).offset(offset).execute()) as ObjectRow[];
  },

  async insertTable(db: Db, projectId: string, digest: string, rows: { digest: string; val: unknown }[]): Promise<void> {
    const unique = [...new Map(rows.map((row) => [row.digest, row])).values()];
    if (unique.length > 0) {
      await sql`
        insert into tracing.table_rows (project_id, digest, val)
        select ${projectId}, v.digest, v.val from jsonb_to_recordset(${JSON.stringify(unique)}::jsonb) as v(digest text, val jsonb)
        on conflict do nothing`.execute(db);
    }
    await db
      .insertInto('tables')
      .values({ project_id: projectId, digest, row_digests: rows.map((row) => row.digest) })
      .onConflict((oc) => oc.doNothing())
      .execute();
  },

  async tableExists(db: Db, projectId: string, digest: string): Promise<boolean> {
    return !!(await db.selectFrom('tables').select('digest').where('project_id', '=', projectId).where('digest', '=', digest).executeTakeFirst());
  },

  async tableRows(
    db: Db,
    projectId: string,
    digest: string,
    rowDigests: string[] | null,
    limit: number,
    offset: number,
  ): Promise<{ digest: string; val: unknown; original_index: number }[]> {
    const result = await sql<{ digest: string; val: unknown; original_index: number }>`
      select r.digest, r.val, (t.ord - 1)::int as original_index
      from tracing.tables tb
      cross join lateral unnest(tb.row_digests) with ordinality as t(digest, ord)
      join tracing.table_rows r on r.project_id = tb.project_id and r.digest = t.digest
      where tb.project_id = ${projectId} and tb.digest = ${digest}
        and (${rowDigests}::text[] is null or t.digest = any(${rowDigests}::text[]))
      order by t.ord
      limit ${limit} offset ${offset}`.execute(db);
    return result.rows;
  },

  async insertFile(db: Db, projectId: string, digest: string, content: Buffer): Promise<void> {
    await db.insertInto('files').values({ project_id: projectId, digest, content }).onConflict((oc) => oc.doNothing()).execute();
  },

  async readFile(db: Db, projectId: string, digest: string): Promise<Buffer | undefined> {
    const row = await db.selectFrom('files').select('content').where('project_id', '=', projectId).where('digest', '=', digest).executeTakeFirst();
    return row?.content;
  },
};
