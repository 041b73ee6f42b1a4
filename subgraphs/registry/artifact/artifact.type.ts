import { Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import { connectionTypes } from '../../../platform/graphql/connection.js';
import { JSONObjectScalar } from '../../../platform/graphql/scalars.js';
import type { ArtifactVersionPayload } from '../events/registry-events.js';
import type { CollectionRow } from '../store.js';

@ObjectType('ArtifactCollection', { description: 'A named sequence of artifact versions in a project or a registry' })
export class ArtifactCollection {
  @Field(() => ID, { description: 'Id of the collection' }) id!: string;
  @Field(() => String, { description: 'Team owning it' }) entity!: string;
  @Field(() => String, { nullable: true, description: 'Owning project (project collections)' }) project!: string | null;
  @Field(() => String, { nullable: true, description: 'Owning registry (registry collections)' }) registry!: string | null;
  @Field(() => String, { description: 'Name, unique in its project or registry' }) name!: string;
  @Field(() => String, { description: 'Artifact type of its versions (dataset, model, …)' }) type!: string;
  @Field(() => String, { nullable: true, description: 'What the collection holds' }) description!: string | null;
  @Field(() => Date, { description: 'When it was created' }) createdAt!: Date;
}

export const ArtifactCollectionConnection = connectionTypes(ArtifactCollection, 'ArtifactCollection', 'artifact collection');

export function toCollection(row: CollectionRow): ArtifactCollection {
  return Object.assign(new ArtifactCollection(), {
    id: row.id,
    entity: row.entity,
    project: row.owner_kind === 'PROJECT' ? row.owner_name : null,
    registry: row.owner_kind === 'REGISTRY' ? row.owner_name : null,
    name: row.name,
    type: row.type,
    description: row.description,
    createdAt: row.created_at,
  });
}

@ObjectType('ArtifactFile', { description: 'A file of an artifact version' })
export class ArtifactFile {
  @Field(() => String, { description: 'Relative path of the file in the version' }) path!: string;
  @Field(() => String, { description: 'Hex SHA-256 of the content' }) digest!: string;
  @Field(() => Int, { description: 'Size in bytes' }) size!: number;
  /** The version holding the file, for the content field (not exposed). */
  versionId!: string;
}

@ObjectType('ArtifactVersion', { description: 'One immutable version of an artifact, as seen from a collection' })
export class ArtifactVersion {
  @Field(() => ID, { description: 'Id of the version (the same in every collection it is linked into)' }) id!: string;
  @Field(() => String, { description: '"<collection>:v<N>"' }) name!: string;
  @Field(() => String, { description: 'v<N>: its position in the collection it is seen from' }) version!: string;
  @Field(() => String, { description: 'The collection it is seen from' }) collection!: string;
  @Field(() => String, { description: 'Artifact type (dataset, model, …)' }) type!: string;
  @Field(() => String, { description: 'Team owning it' }) entity!: string;
  @Field(() => String, { nullable: true, description: 'Project the version was created in' }) project!: string | null;
  @Field(() => String, { nullable: true, description: 'The registry it is seen from, for registry collections' }) registry!: string | null;
  @Field(() => String, { description: 'Hex SHA-256 over the file manifest' }) digest!: string;
  @Field(() => JSONObjectScalar, { description: 'Free-form metadata recorded with it' }) metadata!: Record<string, unknown>;
  @Field(() => [String], { description: 'Aliases pointing at it in the collection it is seen from' }) aliases!: string[];
  @Field(() => [String], { description: 'Its tags' }) tags!: string[];
  @Field(() => [ArtifactFile], { description: 'Its files (a plain list: a version holds a few files)' }) files!: ArtifactFile[];
  @Field(() => String, { description: 'Username of its creator' }) createdBy!: string;
  @Field(() => Date, { description: 'When it was created' }) createdAt!: Date;
}

export const ArtifactVersionConnection = connectionTypes(ArtifactVersion, 'ArtifactVersion', 'artifact version');

export function toArtifactVersion(payload: ArtifactVersionPayload): ArtifactVersion {
  return Object.assign(new ArtifactVersion(), {
    ...payload,
    files: payload.files.map((file) => Object.assign(new ArtifactFile(), file, { versionId: payload.id })),
    createdAt: new Date(payload.createdAt),
  });
}

@ObjectType('NamedArtifactAlias', { description: 'A named alias of a project collection and the version it points at' })
export class NamedArtifactAlias {
  @Field(() => String, { description: 'Team owning the project' }) entity!: string;
  @Field(() => String, { description: 'The project' }) project!: string;
  @Field(() => String, { description: 'The collection' }) collection!: string;
  @Field(() => String, { description: 'The alias (e.g. production)' }) alias!: string;
  @Field(() => JSONObjectScalar, { description: "The version's metadata" }) metadata!: Record<string, unknown>;
  @Field(() => Date, { description: 'When the version it points at was created' }) createdAt!: Date;
}

@InputType('CollectionRefInput', { description: 'A collection of a project or of a registry (name exactly one)' })
export class CollectionRefInput {
  @Field(() => String, { description: 'Team owning it' }) entity!: string;
  @Field(() => String, { nullable: true, description: 'The project, for a project collection' }) project?: string | null;
  @Field(() => String, { nullable: true, description: 'The registry, for a registry collection' }) registry?: string | null;
  @Field(() => String, { description: 'Collection name' }) name!: string;
}

@InputType('ArtifactFileInput', { description: 'A file of a new artifact version' })
export class ArtifactFileInput {
  @Field(() => String, { description: "Relative, '/'-separated path (no '..', no absolute path)" }) path!: string;
  @Field(() => String, { description: 'The bytes, base64' }) contentBase64!: string;
}

@InputType('CreateArtifactVersionInput', { description: 'The next version of a project collection: its files, metadata, aliases and tags' })
export class CreateArtifactVersionInput {
  @Field(() => String, { description: 'Team of the project' }) entity!: string;
  @Field(() => String, { description: 'Project the version is created in' }) project!: string;
  @Field(() => String, { description: 'Collection in the project; created on first use' }) collection!: string;
  @Field(() => String, { nullable: true, description: 'Artifact type (default "dataset")' }) type?: string | null;
  @Field(() => JSONObjectScalar, { nullable: true, description: 'Free-form metadata (e.g. row counts, accuracy)' }) metadata?: Record<string, unknown> | null;
  @Field(() => [ArtifactFileInput], { nullable: true, description: 'The files of the version' }) files?: ArtifactFileInput[] | null;
  @Field(() => [String], { nullable: true, description: 'Aliases to point at it (moved from older versions); latest is implied' }) aliases?: string[] | null;
  @Field(() => [String], { nullable: true, description: 'Tags to put on it' }) tags?: string[] | null;
}
