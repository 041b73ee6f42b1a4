import { INT4_MAX } from '../../platform/validation.js';
import { Type } from '@sinclair/typebox';
import type { SchemaValidateFunction } from 'ajv';
import { ajv } from '../../platform/validation.js';

/** Names and labels the registry accepts, in one place (GraphQL inputs are validated against these). */
const Name = Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$' });
const Label = Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$' });

/**
 * What is wrong with an artifact file path, or undefined when it is fine. Paths are relative, normalized and
 * `/`-separated, so a client that saves a download under its path stays inside its target directory (zip-slip):
 * no absolute paths or drive letters, no `.` or `..` (or dots-only) segments, no empty segments (`a//b`, `dir/`),
 * no backslashes or control characters (NUL included). Fullwidth and other compatibility forms of `/`, `\` and `.`
 * count as what they normalize to (NFKC), as some platforms map them so when saving.
 */
export function artifactFilePathProblem(path: string): string | undefined {
  for (const form of new Set([path, path.normalize('NFKC')])) {
    if (/[\u0000-\u001f\u007f]/.test(form)) return 'contains a control character';
    if (form.includes('\\')) return 'contains a backslash (separate directories with "/")';
    if (form.startsWith('/')) return 'is absolute (paths are relative to the artifact)';
    if (/^[A-Za-z]:/.test(form)) return 'starts with a drive letter';
    const segments = form.split('/');
    if (segments.some((segment) => segment === '')) return 'has an empty segment ("//", or a "/" at the end)';
    if (segments.some((segment) => /^[. ]+$/.test(segment))) return 'has a "." or ".." segment (paths must be normalized)';
  }
  return undefined;
}

/**
 * `x-artifact-file-path: true` on a string schema applies artifactFilePathProblem, so REST bodies (Fastify) and
 * GraphQL inputs (validateOrThrow) share the rule and its message, which names the path. Registered on the shared
 * Ajv when this module loads, before any schema using it can be compiled.
 */
const ARTIFACT_FILE_PATH_KEYWORD = 'x-artifact-file-path';
const validateArtifactFilePath: SchemaValidateFunction = (enabled: boolean, path: string) => {
  const problem = enabled ? artifactFilePathProblem(path) : undefined;
  validateArtifactFilePath.errors = problem ? [{ keyword: ARTIFACT_FILE_PATH_KEYWORD, message: `File path ${JSON.stringify(path)} ${problem}`, params: {} }] : [];
  return !problem;
};
if (!ajv.getKeyword(ARTIFACT_FILE_PATH_KEYWORD)) {
  ajv.addKeyword({ keyword: ARTIFACT_FILE_PATH_KEYWORD, type: 'string', schemaType: 'boolean', errors: true, validate: validateArtifactFilePath });
}

export const ArtifactFilePathSchema = Type.String({
  minLength: 1,
  maxLength: 1024,
  [ARTIFACT_FILE_PATH_KEYWORD]: true,
  description: 'Relative, normalized, "/"-separated: no leading "/", drive letter, "." or ".." segment, empty segment, backslash or control character',
});

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
      Type.Array(Type.Object({ path: ArtifactFilePathSchema, contentBase64: Type.String() }), { maxItems: 1000 }),
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
  files: Type.Array(Type.Object({ path: ArtifactFilePathSchema, content_base64: Type.String() }), { maxItems: 1000 }),
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
