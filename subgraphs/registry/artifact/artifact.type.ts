import { Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import { JSONObjectScalar } from '../../../platform/graphql/scalars.js';
import type { ArtifactVersionPayload } from '../events/registry-events.js';
import type { CollectionRow } from '../store.js';

@ObjectType('ArtifactCollection', { description: 'A named sequence of artifact versions in a project or a registry' })
export class ArtifactCollection {
  @Field(() => ID) id!: string;
  @Field(() => String) entity!: string;
  @Field(() => String, { nullable: true, description: 'Owning project (project collections)' }) project!: string | null;
  @Field(() => String, { nullable: true, description: 'Owning registry (registry collections)' }) registry!: string | null;
  @Field(() => String) name!: string;
  @Field(() => String) type!: string;
  @Field(() => String, { nullable: true }) description!: string | null;
  @Field(() => Date) createdAt!: Date;
}

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

@ObjectType('ArtifactFile')
export class ArtifactFile {
  @Field(() => String) path!: string;
  @Field(() => String, { description: 'Hex SHA-256 of the content' }) digest!: string;
  @Field(() => Int) size!: number;
  /** The version holding the file, for the content field (not exposed). */
  versionId!: string;
}

@ObjectType('ArtifactVersion', { description: 'One immutable version of an artifact, as seen from a collection' })
export class ArtifactVersion {
  @Field(() => ID) id!: string;
  @Field(() => String, { description: '"<collection>:v<N>"' }) name!: string;
  @Field(() => String) version!: string;
  @Field(() => String) collection!: string;
  @Field(() => String) type!: string;
  @Field(() => String) entity!: string;
  @Field(() => String, { nullable: true, description: 'Project the version was created in' }) project!: string | null;
  @Field(() => String, { nullable: true }) registry!: string | null;
  @Field(() => String, { description: 'Hex SHA-256 over the file manifest' }) digest!: string;
  @Field(() => JSONObjectScalar) metadata!: Record<string, unknown>;
  @Field(() => [String]) aliases!: string[];
  @Field(() => [String]) tags!: string[];
  @Field(() => [ArtifactFile]) files!: ArtifactFile[];
  @Field(() => String) createdBy!: string;
  @Field(() => Date) createdAt!: Date;
}

export function toArtifactVersion(payload: ArtifactVersionPayload): ArtifactVersion {
  return Object.assign(new ArtifactVersion(), {
    ...payload,
    files: payload.files.map((file) => Object.assign(new ArtifactFile(), file, { versionId: payload.id })),
    createdAt: new Date(payload.createdAt),
  });
}

@InputType('CollectionRefInput', { description: 'A collection of a project or of a registry (name exactly one)' })
export class CollectionRefInput {
  @Field(() => String) entity!: string;
  @Field(() => String, { nullable: true }) project?: string | null;
  @Field(() => String, { nullable: true }) registry?: string | null;
  @Field(() => String) name!: string;
}

@InputType('ArtifactFileInput')
export class ArtifactFileInput {
  @Field(() => String) path!: string;
  @Field(() => String) contentBase64!: string;
}

@InputType('CreateArtifactVersionInput')
export class CreateArtifactVersionInput {
  @Field(() => String) entity!: string;
  @Field(() => String) project!: string;
  @Field(() => String, { description: 'Collection in the project; created on first use' }) collection!: string;
  @Field(() => String, { nullable: true, description: 'Artifact type (default "dataset")' }) type?: string | null;
  @Field(() => JSONObjectScalar, { nullable: true }) metadata?: Record<string, unknown> | null;
  @Field(() => [ArtifactFileInput], { nullable: true }) files?: ArtifactFileInput[] | null;
  @Field(() => [String], { nullable: true }) aliases?: string[] | null;
  @Field(() => [String], { nullable: true }) tags?: string[] | null;
}
