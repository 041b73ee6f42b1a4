import { createHash } from 'node:crypto';
import type { Static } from '@sinclair/typebox';
import { isRegistryAdmin, isTeamMember, type Principal } from '../../../platform/auth/principal.js';
import { BadRequestError, ConflictError, ForbiddenError, NotFoundError } from '../../../platform/errors.js';
import { publishEvent } from '../../../platform/events/index.js';
import { validateOrThrow } from '../../../platform/validation.js';
import type { RegistryEventType } from '../events/registry-events.js';
import { AliasSchema, CollectionRefSchema, CreateArtifactVersionSchema, TagSchema } from '../registry.schemas.js';
import type { CollectionKey, CollectionRow, RegistryStore, VersionRow } from '../store.js';
import { artifactEventPayload, artifactVersionPayload } from './artifact-payload.js';

export type CollectionRef = Static<typeof CollectionRefSchema>;
export type CreateArtifactVersion = Static<typeof CreateArtifactVersionSchema>;

/**
 * Artifact collections and versions. Every change an automation can watch publishes its platform event in the
 * same transaction: CREATE_ARTIFACT, LINK_ARTIFACT, ADD_ARTIFACT_ALIAS, ADD_ARTIFACT_TAG.
 */
export class ArtifactService {
  constructor(private readonly store: RegistryStore) {}

  async createCollection(principal: Principal, ref: CollectionRef, type: string, description: string | null): Promise<CollectionRow> {
    validateOrThrow(CollectionRefSchema, ref, 'input');
    const key = await this.writableCollectionKey(principal, ref);
    return this.store.transaction(async (store) => {
      if (key.ownerKind === 'REGISTRY' && !(await store.registry(key.entity, key.ownerName))) {
        throw new NotFoundError(`Registry "${key.entity}/${key.ownerName}" does not exist`);
      }
      const { row, created } = await store.ensureCollection(key, type, description);
      if (!created) throw new ConflictError(`Collection "${describe(key)}" already exists`);
      return row;
    });
  }

  /** Creates version v<N> of a project collection (creating the collection on first use). */
  async createVersion(principal: Principal, input: CreateArtifactVersion): Promise<{ version: VersionRow; collection: CollectionRow }> {
    validateOrThrow(CreateArtifactVersionSchema, input, 'input');
    if (!isTeamMember(principal, input.entity)) throw new ForbiddenError(`You are not a member of entity "${input.entity}"`);
    const files = (input.files ?? []).map((file) => {
      const content = Buffer.from(file.contentBase64, 'base64');
      return { path: file.path, content, digest: createHash('sha256').update(content).digest('hex') };
    });
    if (new Set(files.map((file) => file.path)).size !== files.length) throw new BadRequestError('File paths must be unique');
    const manifest = files.map((file) => `${file.path}\0${file.digest}`).sort().join('\n');
    const digest = createHash('sha256').update(manifest).digest('hex');
    const key: CollectionKey = { entity: input.entity, ownerKind: 'PROJECT', ownerName: input.project, name: input.collection };

    return this.store.transaction(async (store) => {
      const { row: collection } = await store.ensureCollection(key, input.type ?? 'dataset', null);
      if (input.type && collection.type !== input.type) {
        throw new ConflictError(`Collection "${describe(key)}" holds artifacts of type "${collection.type}", not "${input.type}"`);
      }
      await store.lockCollection(collection.id);
      const version = await store.insertVersion({
        collectionId: collection.id,
        digest,
        metadata: input.metadata ?? {},
        createdBy: principal.username,
      });
      await store.insertFiles(version.id, files);
      await store.insertMembership(collection.id, version.id, await store.nextVersionIndex(collection.id), principal.username);
      for (const tag of unique(input.tags ?? [])) await store.addTag(version.id, tag);
      for (const alias of unique(input.aliases ?? [])) await store.setAlias(collection.id, alias, version.id);

      await this.publish(store, principal, 'CREATE_ARTIFACT', version, collection);
      for (const alias of unique(input.aliases ?? [])) await this.publish(store, principal, 'ADD_ARTIFACT_ALIAS', version, collection, { alias });
      for (const tag of unique(input.tags ?? [])) await this.publish(store, principal, 'ADD_ARTIFACT_TAG', version, collection, { tag });
      return { version, collection };
    });
  }

  /** Links a version into another collection (a registry's, or a project's), optionally with aliases there. */
  async linkVersion(principal: Principal, versionId: string, target: CollectionRef, aliases: string[]): Promise<{ version: VersionRow; collection: CollectionRow }> {
    validateOrThrow(CollectionRefSchema, target, 'target');
    for (const alias of aliases) validateOrThrow(AliasSchema, alias, 'aliases');
    const key = await this.writableCollectionKey(principal, target);
    return this.store.transaction(async (store) => {
      const { version, source } = await this.readableVersion(store, principal, versionId);
      let collection = await store.collection(key);
      if (!collection) {
        if (key.ownerKind === 'REGISTRY' && !(await store.registry(key.entity, key.ownerName))) {
          throw new NotFoundError(`Registry "${key.entity}/${key.ownerName}" does not exist`);
        }
        collection = (await store.ensureCollection(key, source.type, null)).row;
      }
      if (collection.type !== source.type) {
        throw new ConflictError(`Collection "${describe(key)}" holds artifacts of type "${collection.type}", not "${source.type}"`);
      }
      await store.lockCollection(collection.id);
      const linked = await store.insertMembership(collection.id, version.id, await store.nextVersionIndex(collection.id), principal.username);
      if (linked) await this.publish(store, principal, 'LINK_ARTIFACT', version, collection);
      for (const alias of unique(aliases)) {
        if (await store.setAlias(collection.id, alias, version.id)) {
          await this.publish(store, principal, 'ADD_ARTIFACT_ALIAS', version, collection, { alias });
        }
      }
      return { version, collection };
    });
  }

  /** Adds (or moves) an alias within a collection the version belongs to (default: its source collection). */
  async addAlias(principal: Principal, versionId: string, alias: string, collectionRef: CollectionRef | null): Promise<VersionRow> {
    validateOrThrow(AliasSchema, alias, 'alias');
    const key = collectionRef ? await this.writableCollectionKey(principal, validateOrThrow(CollectionRefSchema, collectionRef, 'collection')) : null;
    return this.store.transaction(async (store) => {
      const { version, source } = await this.readableVersion(store, principal, versionId);
      const collection = key ? await store.collection(key) : source;
      if (!collection || !(await store.membership(collection.id, version.id))) {
        throw new NotFoundError(`Version ${versionId} is not in collection "${key ? describe(key) : source.name}"`);
      }
      if (await store.setAlias(collection.id, alias, version.id)) {
        await this.publish(store, principal, 'ADD_ARTIFACT_ALIAS', version, collection, { alias });
      }
      return version;
    });
  }

  async addTag(principal: Principal, versionId: string, tag: string): Promise<VersionRow> {
    validateOrThrow(TagSchema, tag, 'tag');
    return this.store.transaction(async (store) => {
      const { version, source } = await this.readableVersion(store, principal, versionId);
      if (await store.addTag(version.id, tag)) await this.publish(store, principal, 'ADD_ARTIFACT_TAG', version, source, { tag });
      return version;
    });
  }

  async version(principal: Principal, versionId: string): Promise<{ version: VersionRow; collection: CollectionRow } | null> {
    const found = await this.readableVersion(this.store, principal, versionId).catch((error) => {
      if (error instanceof NotFoundError) return null;
      throw error;
    });
    return found ? { version: found.version, collection: found.source } : null;
  }

  /**
   * A project collection's version by name, as W&B clients address artifacts (`entity/project/collection:version`):
   * `version` is `v<N>`, an alias, or absent = `latest` (the alias when set, else the newest version). Null when
   * there is no such version or the caller may not read it (no existence leak).
   */
  async versionByName(
    principal: Principal,
    ref: { entity: string; project: string; collection: string; version?: string | null },
  ): Promise<{ version: VersionRow; collection: CollectionRow } | null> {
    if (!isTeamMember(principal, ref.entity)) return null;
    const collection = await this.store.collection({ entity: ref.entity, ownerKind: 'PROJECT', ownerName: ref.project, name: ref.collection });
    if (!collection) return null;
    const wanted = ref.version ?? 'latest';
    const index = /^v(\d+)$/.exec(wanted);
    const versionId = index
      ? await this.store.memberAt(collection.id, Number(index[1]))
      : ((await this.store.aliasTarget(collection.id, wanted)) ?? (wanted === 'latest' ? await this.store.newestMember(collection.id) : undefined));
    const version = versionId ? await this.store.version(versionId) : undefined;
    return version ? { version, collection } : null;
  }

  /** The named aliases of `type` in the projects of the teams the caller belongs to (every team for a platform admin). */
  async namedAliases(principal: Principal, type: string, limit: number) {
    return this.store.namedAliases(principal.isAdmin ? 'every team' : Object.keys(principal.teams), type, limit);
  }

  /** A file's bytes; the caller has already read the version (its access was checked there). */
  fileContent(versionId: string, path: string): Promise<Buffer | undefined> {
    return this.store.fileContent(versionId, path);
  }

  payload(version: VersionRow, collection: CollectionRow) {
    return artifactVersionPayload(this.store, version, collection);
  }

  private async publish(
    store: RegistryStore,
    principal: Principal,
    type: RegistryEventType,
    version: VersionRow,
    collection: CollectionRow,
    extra: { alias?: string; tag?: string } = {},
  ): Promise<void> {
    const payload = await artifactEventPayload(store, version, collection, extra);
    await publishEvent(store.db, {
      type,
      entity: collection.entity,
      project: payload.artifactVersion.project,
      registry: payload.artifactVersion.registry,
      author: principal.username,
      payload: payload as unknown as Record<string, unknown>,
    });
  }

  private async readableVersion(store: RegistryStore, principal: Principal, versionId: string): Promise<{ version: VersionRow; source: CollectionRow }> {
    const version = /^[0-9a-f-]{36}$/i.test(versionId) ? await store.version(versionId) : undefined;
    const source = version ? await store.collectionById(version.collection_id) : undefined;
    if (!version || !source || !isTeamMember(principal, source.entity)) throw new NotFoundError(`Artifact version ${versionId} not found`);
    return { version, source };
  }

  /** Registry collections need a registry admin; project collections a member of the project's team. */
  private async writableCollectionKey(principal: Principal, ref: CollectionRef): Promise<CollectionKey> {
    if (Boolean(ref.project) === Boolean(ref.registry)) throw new BadRequestError('Name exactly one of project or registry for a collection');
    if (ref.registry) {
      if (!isRegistryAdmin(principal, ref.entity, ref.registry)) {
        throw new ForbiddenError(`Only admins of registry "${ref.entity}/${ref.registry}" may do this`);
      }
      return { entity: ref.entity, ownerKind: 'REGISTRY', ownerName: ref.registry, name: ref.name };
    }
    if (!isTeamMember(principal, ref.entity)) throw new ForbiddenError(`You are not a member of entity "${ref.entity}"`);
    return { entity: ref.entity, ownerKind: 'PROJECT', ownerName: ref.project!, name: ref.name };
  }
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}

function describe(key: CollectionKey): string {
  return `${key.entity}/${key.ownerName}/${key.name}`;
}
