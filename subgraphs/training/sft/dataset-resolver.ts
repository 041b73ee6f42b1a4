import { createHash } from 'node:crypto';
import { TrellisError } from '../../../platform/errors.js';
import type { GraphCaller, PlatformGraph } from '../../../platform/graphql/platform-graph.js';
import { parseTrainingDataUrl, TRAIN_FILE } from './training-data-url.js';

/** The dataset an SFT job is submitted with: the registry's train.jsonl at that moment. */
export interface ResolvedDataset {
  artifactVersionId: string;
  digest: string;
  content: Buffer;
}

/**
 * A `training_data_url` that does not name a readable dataset: 422 in the OpenAI error shape naming the field
 * (the job is not created).
 */
export class UnresolvedTrainingDataError extends TrellisError {
  constructor(url: string, reason: string) {
    super(422, 'VALIDATION_FAILED', `training_data_url ${JSON.stringify(url)} does not resolve: ${reason}`, { param: 'training_data_url' });
  }
}

const DATASET_QUERY = `query TrainingDataset($entity: String!, $project: String!, $collection: String!, $version: String, $path: String!) {
  artifactVersionByName(entity: $entity, project: $project, collection: $collection, version: $version) {
    id
    file(path: $path) { digest contentBase64 }
  }
}`;

interface DatasetQueryResult {
  artifactVersionByName: { id: string; file: { digest: string; contentBase64: string } | null } | null;
}

/**
 * Reads the dataset an SFT job names from the registry, through the federated graph and as the caller (training
 * never reads registry tables; the registry applies its own access rules, and an artifact the caller may not read
 * looks the same as a missing one).
 */
export class SftDatasetResolver {
  constructor(private readonly graph: PlatformGraph) {}

  async resolve(url: string, caller: GraphCaller): Promise<ResolvedDataset> {
    const ref = parseTrainingDataUrl(url);
    if (!ref) throw new UnresolvedTrainingDataError(url, 'expected wandb-artifact:///{entity}/{project}/{artifact}:{version}');
    const data = await this.graph.execute<DatasetQueryResult>(
      DATASET_QUERY,
      { entity: ref.entity, project: ref.project, collection: ref.artifact, version: ref.version, path: TRAIN_FILE },
      caller,
    );
    const version = data.artifactVersionByName;
    if (!version) {
      throw new UnresolvedTrainingDataError(url, `no artifact version ${ref.entity}/${ref.project}/${ref.artifact}:${ref.version} that you can read`);
    }
    if (!version.file) throw new UnresolvedTrainingDataError(url, `the artifact version has no ${TRAIN_FILE}`);
    const content = Buffer.from(version.file.contentBase64, 'base64');
    // The copy must be the file the registry describes (base64 through two hops of JSON).
    const digest = createHash('sha256').update(content).digest('hex');
    if (digest !== version.file.digest) throw new TrellisError(502, 'UPSTREAM_ERROR', `${TRAIN_FILE} of ${url} arrived damaged (digest mismatch)`);
    return { artifactVersionId: version.id, digest, content };
  }
}
