import type { SftDataResolver } from './job/job-runner.js';
import { TrainingInputError } from './trainer/trainer-backend.js';

/**
 * Resolves `training_data_url` (a registry dataset artifact holding train.jsonl). The registry does not yet serve
 * file contents to other subgraphs (its GraphQL exposes paths, sizes and digests only), and training must not read
 * registry tables, so SFT jobs fail with this message until that read path exists.
 */
export const resolveSftDataset: SftDataResolver = async (_model, trainingDataUrl) => {
  throw new TrainingInputError(
    `Cannot resolve training_data_url ${trainingDataUrl}: reading dataset artifacts from the registry is not available in this version`,
  );
};
