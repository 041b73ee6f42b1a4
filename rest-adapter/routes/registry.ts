import { NotFoundError } from '../../platform/errors.js';
import { ArtifactCollectionParams, ArtifactVersionParams, ArtifactVersionUploadBody } from '../../subgraphs/registry/registry.schemas.js';
import { defineRoute } from '../route.js';

/**
 * Registry artifacts over REST under /registry/v1 (a Trellis addition: the W&B artifact API is not REST), so a user
 * can upload a dataset (e.g. the `train.jsonl` an SFT job names as `wandb-artifact:///entity/project/name:v0`) and
 * read versions and file bytes back. Errors are OpenAI-style, like the training API that consumes the datasets.
 */
const VERSION_FIELDS = 'id name version collection type entity project digest aliases tags metadata files { path digest size } createdAt';

const toVersion = (version: Record<string, any>) => ({
  id: version.id,
  name: version.name,
  version: version.version,
  collection: version.collection,
  type: version.type,
  entity: version.entity,
  project: version.project,
  digest: version.digest,
  aliases: version.aliases,
  tags: version.tags,
  metadata: version.metadata,
  files: version.files,
  created_at: version.createdAt,
});

const describe = (params: { entity: string; project: string; collection: string; version: string }) =>
  `${params.entity}/${params.project}/${params.collection}:${params.version}`;

const BY_NAME = `$entity: String!, $project: String!, $collection: String!, $version: String`;
const BY_NAME_ARGS = 'entity: $entity, project: $project, collection: $collection, version: $version';

export const registryRoutes = [
  defineRoute({
    family: 'platform',
    method: 'POST',
    path: '/registry/v1/artifacts/:entity/:project/:collection',
    summary: 'Create the next version of a project artifact collection (files base64; type default "dataset")',
    schema: { params: ArtifactCollectionParams, body: ArtifactVersionUploadBody },
    bodyLimit: 256 * 1024 * 1024,
    operation: `mutation ArtifactVersionUpload($input: CreateArtifactVersionInput!) { createArtifactVersion(input: $input) { ${VERSION_FIELDS} } }`,
    variables: ({ params, body }) => ({
      input: {
        entity: params.entity,
        project: params.project,
        collection: params.collection,
        type: body.type ?? null,
        metadata: body.metadata ?? null,
        files: body.files.map((file: { path: string; content_base64: string }) => ({ path: file.path, contentBase64: file.content_base64 })),
        aliases: body.aliases ?? null,
        tags: body.tags ?? null,
      },
    }),
    response: (data) => toVersion(data.createArtifactVersion),
  }),
  defineRoute({
    family: 'platform',
    method: 'GET',
    path: '/registry/v1/artifacts/:entity/:project/:collection/:version',
    summary: 'An artifact version by v<N> or alias (latest: the alias, else the newest version)',
    schema: { params: ArtifactVersionParams },
    operation: `query ArtifactVersionRead(${BY_NAME}) { artifactVersionByName(${BY_NAME_ARGS}) { ${VERSION_FIELDS} } }`,
    variables: ({ params }) => ({ ...params }),
    response: (data, { params }) => {
      if (!data.artifactVersionByName) throw new NotFoundError(`Artifact ${describe(params)} not found`);
      return toVersion(data.artifactVersionByName);
    },
  }),
  defineRoute({
    family: 'platform',
    method: 'GET',
    path: '/registry/v1/artifacts/:entity/:project/:collection/:version/files/*',
    summary: 'The bytes of one file of an artifact version',
    contentType: 'application/octet-stream',
    operation: `query ArtifactFileContent(${BY_NAME}, $path: String!) {
      artifactVersionByName(${BY_NAME_ARGS}) { file(path: $path) { contentBase64 } }
    }`,
    variables: ({ params }) => ({ entity: params.entity, project: params.project, collection: params.collection, version: params.version, path: params['*'] }),
    response: (data, { params }) => {
      const file = data.artifactVersionByName?.file;
      if (!file) throw new NotFoundError(`Artifact ${describe(params)} has no file "${params['*']}"`);
      return Buffer.from(file.contentBase64, 'base64');
    },
  }),
];
