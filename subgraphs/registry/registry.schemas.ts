import { INT4_MAX } from '../../platform/validation.js';
import { Type } from '@sinclair/typebox';

/** Names and labels the registry accepts, in one place (GraphQL inputs are validated against these). */
const Name = Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$' });
const Label = Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$' });

export const RegistryNameSchema = Name;
export const CollectionNameSchema = Name;
export const AliasSchema = Label;
export const TagSchema = Label;

export const CreateRegistrySchema = Type.Object({
  entity: Name,
  name: Name,
  description: Type.Optional(Type.Union([Type.String({ maxLength: 4096 }), Type.Null()])),
});

export const CollectionRefSchema = Type.Object({
  entity: Name,
  project: Type.Optional(Type.Union([Name, Type.Null()])),
  registry: Type.Optional(Type.Union([Name, Type.Null()])),
  name: Name,
});

export const CreateArtifactVersionSchema = Type.Object({
  entity: Name,
  project: Name,
  collection: Name,
  type: Type.Optional(Type.Union([Name, Type.Null()])),
  metadata: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()])),
  files: Type.Optional(
    Type.Union([
      Type.Array(Type.Object({ path: Type.String({ minLength: 1, maxLength: 1024 }), contentBase64: Type.String() }), { maxItems: 1000 }),
      Type.Null(),
    ]),
  ),
  aliases: Type.Optional(Type.Union([Type.Array(Label, { maxItems: 100 }), Type.Null()])),
  tags: Type.Optional(Type.Union([Type.Array(Label, { maxItems: 100 }), Type.Null()])),
});

/**
 * The REST form of CreateArtifactVersion (`POST /registry/v1/artifacts/{entity}/{project}/{collection}`): the path
 * names the collection, files carry `content_base64`. The service still validates the GraphQL input it becomes.
 */
export const ArtifactVersionUploadBody = Type.Object({
  type: Type.Optional(Type.Union([Name, Type.Null()])),
  metadata: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()])),
  files: Type.Array(Type.Object({ path: Type.String({ minLength: 1, maxLength: 1024 }), content_base64: Type.String() }), { maxItems: 1000 }),
  aliases: Type.Optional(Type.Union([Type.Array(Label, { maxItems: 100 }), Type.Null()])),
  tags: Type.Optional(Type.Union([Type.Array(Label, { maxItems: 100 }), Type.Null()])),
});
export const ArtifactCollectionParams = Type.Object({ entity: Name, project: Name, collection: Name });
export const ArtifactVersionParams = Type.Object({ entity: Name, project: Name, collection: Name, version: Label });

export const CreateRunSchema = Type.Object({
  entity: Name,
  project: Name,
  name: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 256 }), Type.Null()])),
});

export const MetricPointSchema = Type.Object({
  name: Type.String({ pattern: '^[A-Za-z0-9_./-]{1,256}$' }),
  value: Type.Number(),
  step: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: INT4_MAX }), Type.Null()])),
});
export const LogMetricsSchema = Type.Array(MetricPointSchema, { minItems: 1, maxItems: 1000 });
