/**
 * `training_data_url` of SFT jobs: `wandb-artifact:///{entity}/{project}/{artifact}:{version}` names a dataset
 * artifact version in the registry (`version` = v<N> or an alias; omitted = latest). The two-slash typo
 * `wandb-artifact://` is accepted, as for checkpoint model names.
 */
export interface TrainingDataRef {
  entity: string;
  project: string;
  artifact: string;
  version: string;
}

const TRAINING_DATA_URL = /^wandb-artifact:\/\/\/?([^/:]+)\/([^/:]+)\/([^/:]+)(?::([^/:]+))?$/;

export function parseTrainingDataUrl(url: string): TrainingDataRef | null {
  const match = TRAINING_DATA_URL.exec(url);
  if (!match) return null;
  const [, entity, project, artifact, version] = match as unknown as [string, string, string, string, string | undefined];
  return { entity, project, artifact, version: version ?? 'latest' };
}

/** The file of the artifact an SFT job trains on. */
export const TRAIN_FILE = 'train.jsonl';
