import type { ArtifactEventPayload, ArtifactVersionPayload } from '../events/registry-events.js';
import type { CollectionRow, RegistryStore, VersionRow } from '../store.js';

/** The version as seen from `collection` (its index and aliases there), for event payloads and the API. */
export async function artifactVersionPayload(
  store: RegistryStore,
  version: VersionRow,
  collection: CollectionRow,
): Promise<ArtifactVersionPayload> {
  const source = version.collection_id === collection.id ? collection : (await store.collectionById(version.collection_id))!;
  const membership = await store.membership(collection.id, version.id);
  const index = membership?.version_index ?? 0;
  return {
    id: version.id,
    type: source.type,
    name: `${collection.name}:v${index}`,
    collection: collection.name,
    version: `v${index}`,
    entity: collection.entity,
    project: source.owner_name,
    registry: collection.owner_kind === 'REGISTRY' ? collection.owner_name : null,
    digest: version.digest,
    aliases: await store.aliases(collection.id, version.id),
    tags: await store.tags(version.id),
    metadata: version.metadata,
    files: await store.files(version.id),
    createdBy: version.created_by,
    createdAt: version.created_at.toISOString(),
  };
}

export async function artifactEventPayload(
  store: RegistryStore,
  version: VersionRow,
  collection: CollectionRow,
  extra: Pick<ArtifactEventPayload, 'alias' | 'tag'> = {},
): Promise<ArtifactEventPayload> {
  const artifactVersion = await artifactVersionPayload(store, version, collection);
  return {
    artifactVersion,
    artifactVersionString: `${collection.entity}/${collection.owner_name}/${artifactVersion.name}`,
    collection: collection.name,
    ...extra,
  };
}
