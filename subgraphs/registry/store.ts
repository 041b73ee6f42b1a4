import { sql, type Kysely, type Selectable } from 'kysely';
import type {
  CollectionOwnerKind,
  CollectionsTable,
  RegistriesTable,
  RegistryDatabase,
  RunState,
  RunsTable,
  VersionsTable,
} from './db/database.js';

/** A page of a list ordered by name: at most `limit` rows, those after `afterName`. */
export interface NamePage {
  limit?: number;
  afterName?: string | null;
}

export type RegistryRow = Selectable<RegistriesTable>;
export type CollectionRow = Selectable<CollectionsTable>;
export type VersionRow = Selectable<VersionsTable>;
export type RunRow = Selectable<RunsTable>;

export interface CollectionKey {
  entity: string;
  ownerKind: CollectionOwnerKind;
  ownerName: string;
  name: string;
}

/**
 * Kysely queries of the registry schema. Constructed over the subgraph's handle or over a transaction, so a
 * service runs several of them (and its platform event) atomically.
 */
export class RegistryStore {
  constructor(readonly db: Kysely<RegistryDatabase>) {}

  /** Runs `work` in a transaction; a store already over a transaction joins it (consumers write several changes and their cursor atomically). */
  transaction<T>(work: (store: RegistryStore) => Promise<T>): Promise<T> {
    if (this.db.isTransaction) return work(this);
    return this.db.transaction().execute((trx) => work(new RegistryStore(trx)));
  }

  runByName(entity: string, project: string, name: string): Promise<RunRow | undefined> {
    return this.db.selectFrom('runs').selectAll().where('entity', '=', entity).where('project', '=', project).where('name', '=', name).executeTakeFirst();
  }

  countRuns(entity: string, project: string): Promise<number> {
    return this.db
      .selectFrom('runs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('entity', '=', entity)
      .where('project', '=', project)
      .executeTakeFirstOrThrow()
      .then((row) => Number(row.n));
  }

  // Registries

  insertRegistry(values: { entity: string; name: string; description: string | null; createdBy: string }): Promise<RegistryRow | undefined> {
    return this.db
      .insertInto('registries')
      .values({ entity: values.entity, name: values.name, description: values.description, created_by: values.createdBy })
      .onConflict((oc) => oc.columns(['entity', 'name']).doNothing())
      .returningAll()
      .executeTakeFirst();
  }

  registry(entity: string, name: string): Promise<RegistryRow | undefined> {
    return this.db.selectFrom('registries').selectAll().where('entity', '=', entity).where('name', '=', name).executeTakeFirst();
  }

  /** A team's registries by name: `limit` of them (all without one), those after `afterName` when given. */
  registriesOf(entity: string, page: NamePage = {}): Promise<RegistryRow[]> {
    let query = this.db.selectFrom('registries').selectAll().where('entity', '=', entity);
    if (page.afterName) query = query.where('name', '>', page.afterName);
    query = query.orderBy('name');
    return (page.limit === undefined ? query : query.limit(page.limit)).execute();
  }

  // Collections

  collection(key: CollectionKey): Promise<CollectionRow | undefined> {
    return this.db
      .selectFrom('collections')
      .selectAll()
      .where('entity', '=', key.entity)
      .where('owner_kind', '=', key.ownerKind)
      .where('owner_name', '=', key.ownerName)
      .where('name', '=', key.name)
      .executeTakeFirst();
  }

  collectionById(id: string): Promise<CollectionRow | undefined> {
    return this.db.selectFrom('collections').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** A project's or registry's collections by name: `limit` of them (all without one), those after `afterName`. */
  collectionsOf(entity: string, ownerKind: CollectionOwnerKind, ownerName: string, page: NamePage = {}): Promise<CollectionRow[]> {
    let query = this.db.selectFrom('collections').selectAll().where('entity', '=', entity).where('owner_kind', '=', ownerKind).where('owner_name', '=', ownerName);
    if (page.afterName) query = query.where('name', '>', page.afterName);
    query = query.orderBy('name');
    return (page.limit === undefined ? query : query.limit(page.limit)).execute();
  }

  /** Returns the row and whether this call created it. */
  async ensureCollection(key: CollectionKey, type: string, description: string | null): Promise<{ row: CollectionRow; created: boolean }> {
    const inserted = await this.db
      .insertInto('collections')
      .values({ entity: key.entity, owner_kind: key.ownerKind, owner_name: key.ownerName, name: key.name, type, description })
      .onConflict((oc) => oc.columns(['entity', 'owner_kind', 'owner_name', 'name']).doNothing())
      .returningAll()
      .executeTakeFirst();
    if (inserted) return { row: inserted, created: true };
    return { row: (await this.collection(key))!, created: false };
  }

  /** Serialises version numbering within one collection. */
  async lockCollection(id: string): Promise<void> {
    await this.db.selectFrom('collections').select('id').where('id', '=', id).forUpdate().execute();
  }

  // Versions

  insertVersion(values: { collectionId: string; digest: string; metadata: Record<string, unknown>; createdBy: string }): Promise<VersionRow> {
    return this.db
      .insertInto('versions')
      .values({
        collection_id: values.collectionId,
        digest: values.digest,
        metadata: JSON.stringify(values.metadata),
        created_by: values.createdBy,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  version(id: string): Promise<VersionRow | undefined> {
    return this.db.selectFrom('versions').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async insertFiles(versionId: string, files: { path: string; digest: string; content: Buffer }[]): Promise<void> {
    if (!files.length) return;
    await this.db
      .insertInto('version_files')
      .values(files.map((file) => ({ version_id: versionId, path: file.path, digest: file.digest, size: file.content.length, content: file.content })))
      .execute();
  }

  files(versionId: string): Promise<{ path: string; digest: string; size: number }[]> {
    return this.db.selectFrom('version_files').select(['path', 'digest', 'size']).where('version_id', '=', versionId).orderBy('path').execute();
  }

  fileContent(versionId: string, path: string): Promise<Buffer | undefined> {
    return this.db
      .selectFrom('version_files')
      .select('content')
      .where('version_id', '=', versionId)
      .where('path', '=', path)
      .executeTakeFirst()
      .then((row) => row?.content);
  }

  async nextVersionIndex(collectionId: string): Promise<number> {
    const row = await this.db
      .selectFrom('memberships')
      .select(sql<number>`coalesce(max(version_index) + 1, 0)`.as('next'))
      .where('collection_id', '=', collectionId)
      .executeTakeFirstOrThrow();
    return Number(row.next);
  }

  insertMembership(collectionId: string, versionId: string, versionIndex: number, linkedBy: string): Promise<boolean> {
    return this.db
      .insertInto('memberships')
      .values({ collection_id: collectionId, version_id: versionId, version_index: versionIndex, linked_by: linkedBy })
      .onConflict((oc) => oc.columns(['collection_id', 'version_id']).doNothing())
      .returning('version_id')
      .executeTakeFirst()
      .then((row) => row !== undefined);
  }

  membership(collectionId: string, versionId: string): Promise<{ version_index: number } | undefined> {
    return this.db
      .selectFrom('memberships')
      .select('version_index')
      .where('collection_id', '=', collectionId)
      .where('version_id', '=', versionId)
      .executeTakeFirst();
  }

  /** The version at index `v<N>` of a collection. */
  memberAt(collectionId: string, versionIndex: number): Promise<string | undefined> {
    return this.db
      .selectFrom('memberships')
      .select('version_id')
      .where('collection_id', '=', collectionId)
      .where('version_index', '=', versionIndex)
      .executeTakeFirst()
      .then((row) => row?.version_id);
  }

  /** The newest version of a collection (highest index). */
  newestMember(collectionId: string): Promise<string | undefined> {
    return this.db
      .selectFrom('memberships')
      .select('version_id')
      .where('collection_id', '=', collectionId)
      .orderBy('version_index', 'desc')
      .limit(1)
      .executeTakeFirst()
      .then((row) => row?.version_id);
  }

  /**
   * The named aliases of the teams' project collections of `type`: every alias but `latest` and the per-step
   * `step<N>` ones the training recorder gives checkpoints — the names people gave versions (a promotion's
   * `production`). Newest versions first, `limit` at most.
   */
  async namedAliases(
    entities: string[] | 'every team',
    type: string,
    limit: number,
  ): Promise<{ entity: string; project: string; collection: string; alias: string; metadata: Record<string, unknown>; created_at: Date }[]> {
    if (entities.length === 0) return [];
    return this.db
      .selectFrom('aliases as a')
      .innerJoin('collections as c', 'c.id', 'a.collection_id')
      .innerJoin('versions as v', 'v.id', 'a.version_id')
      .select(['c.entity', 'c.owner_name as project', 'c.name as collection', 'a.alias', 'v.metadata', 'v.created_at'])
      .$if(entities !== 'every team', (query) => query.where('c.entity', 'in', entities as string[]))
      .where('c.owner_kind', '=', 'PROJECT')
      .where('c.type', '=', type)
      .where('a.alias', '<>', 'latest')
      .where(sql<boolean>`a.alias !~ '^step[0-9]+$'`)
      .orderBy('v.created_at', 'desc')
      .orderBy('c.entity')
      .orderBy('c.owner_name')
      .orderBy('c.name')
      .orderBy('a.alias')
      .limit(limit)
      .execute();
  }

  aliasTarget(collectionId: string, alias: string): Promise<string | undefined> {
    return this.db
      .selectFrom('aliases')
      .select('version_id')
      .where('collection_id', '=', collectionId)
      .where('alias', '=', alias)
      .executeTakeFirst()
      .then((row) => row?.version_id);
  }

  /** A collection's versions in order (oldest first): `limit` of them (all without one), those after `afterIndex`. */
  membersOf(collectionId: string, page: { limit?: number; afterIndex?: number | null } = {}): Promise<{ version_id: string; version_index: number }[]> {
    let query = this.db.selectFrom('memberships').select(['version_id', 'version_index']).where('collection_id', '=', collectionId);
    if (page.afterIndex !== undefined && page.afterIndex !== null) query = query.where('version_index', '>', page.afterIndex);
    query = query.orderBy('version_index');
    return (page.limit === undefined ? query : query.limit(page.limit)).execute();
  }

  /** Points the alias at the version; false when it already pointed there. */
  async setAlias(collectionId: string, alias: string, versionId: string): Promise<boolean> {
    const result = await this.db
      .insertInto('aliases')
      .values({ collection_id: collectionId, alias, version_id: versionId })
      .onConflict((oc) => oc.columns(['collection_id', 'alias']).doUpdateSet({ version_id: versionId }).where('aliases.version_id', '!=', versionId))
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
  }

  /**
   * Deletes a version: its aliases (so `latest` falls back to the newest version left), tags, memberships (its `v<N>`
   * in its collection and its links elsewhere) and files.
   */
  async deleteVersion(versionId: string): Promise<void> {
    await this.db.deleteFrom('aliases').where('version_id', '=', versionId).execute();
    await this.db.deleteFrom('tags').where('version_id', '=', versionId).execute();
    await this.db.deleteFrom('memberships').where('version_id', '=', versionId).execute();
    await this.db.deleteFrom('versions').where('id', '=', versionId).execute(); // its files cascade
  }

  /** Removes the alias when it points at the version (moved elsewhere since: kept); false when nothing was removed. */
  async removeAliasFrom(collectionId: string, alias: string, versionId: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('aliases')
      .where('collection_id', '=', collectionId)
      .where('alias', '=', alias)
      .where('version_id', '=', versionId)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  aliases(collectionId: string, versionId: string): Promise<string[]> {
    return this.db
      .selectFrom('aliases')
      .select('alias')
      .where('collection_id', '=', collectionId)
      .where('version_id', '=', versionId)
      .orderBy('alias')
      .execute()
      .then((rows) => rows.map((row) => row.alias));
  }

  async addTag(versionId: string, tag: string): Promise<boolean> {
    const result = await this.db
      .insertInto('tags')
      .values({ version_id: versionId, tag })
      .onConflict((oc) => oc.columns(['version_id', 'tag']).doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
  }

  tags(versionId: string): Promise<string[]> {
    return this.db
      .selectFrom('tags')
      .select('tag')
      .where('version_id', '=', versionId)
      .orderBy('tag')
      .execute()
      .then((rows) => rows.map((row) => row.tag));
  }

  // Runs

  insertRun(values: { entity: string; project: string; name: string; author: string }): Promise<RunRow> {
    return this.db.insertInto('runs').values(values).returningAll().executeTakeFirstOrThrow();
  }

  run(id: string, options: { forUpdate?: boolean } = {}): Promise<RunRow | undefined> {
    let query = this.db.selectFrom('runs').selectAll().where('id', '=', id);
    if (options.forUpdate) query = query.forUpdate();
    return query.executeTakeFirst();
  }

  /**
   * A project's runs newest first (created_at, then id): `limit` of them, those before the keyset position `before`.
   * Rows carry their creation time in microseconds (`created_us`), the precision a keyset needs.
   */
  runsOf(entity: string, project: string, limit: number, before?: { createdMicros: string; id: string } | null): Promise<(RunRow & { created_us: string })[]> {
    let query = this.db
      .selectFrom('runs')
      .selectAll()
      .select(sql<string>`(extract(epoch from created_at) * 1000000)::bigint::text`.as('created_us'))
      .where('entity', '=', entity)
      .where('project', '=', project);
    if (before) query = query.where(sql<boolean>`(created_at, id) < (timestamptz 'epoch' + ${before.createdMicros}::bigint * interval '1 microsecond', ${before.id}::uuid)`);
    return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  }

  setRunState(id: string, state: RunState): Promise<RunRow> {
    return this.db.updateTable('runs').set({ state, updated_at: new Date() }).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
  }

  async nextMetricStep(runId: string, name: string): Promise<number> {
    const row = await this.db
      .selectFrom('run_metrics')
      .select(sql<number>`coalesce(max(step) + 1, 0)`.as('next'))
      .where('run_id', '=', runId)
      .where('name', '=', name)
      .executeTakeFirstOrThrow();
    return Number(row.next);
  }

  async insertMetric(values: { runId: string; name: string; step: number; value: number }): Promise<boolean> {
    const result = await this.db
      .insertInto('run_metrics')
      .values({ run_id: values.runId, name: values.name, step: values.step, value: values.value })
      .onConflict((oc) => oc.columns(['run_id', 'name', 'step']).doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
  }

  metricHistory(runId: string, name: string): Promise<{ step: number; value: number; logged_at: Date }[]> {
    return this.db
      .selectFrom('run_metrics')
      .select(['step', 'value', 'logged_at'])
      .where('run_id', '=', runId)
      .where('name', '=', name)
      .orderBy('step')
      .execute();
  }
}
