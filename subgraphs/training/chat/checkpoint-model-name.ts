/**
 * Model names of checkpoint inference: `wandb-artifact:///{entity}/{project}/{name}:{alias}` with alias `latest`,
 * `step{N}`, a named alias given by promotion (`production`), or none (= latest). The two-slash typo
 * `wandb-artifact://` is accepted too. Anything else is a base model name. `step0` names the model's base model (no
 * adapter), whether or not the model has trained.
 */
export type CheckpointRef = { entity: string; project: string; name: string; step: number | 'latest' | { alias: string } };

const ARTIFACT_NAME = /^wandb-artifact:\/\/\/?([^/:]+)\/([^/:]+)\/([^/:]+)(?::([^/:]+))?$/;
/** What a promoted alias may be named (training.schemas.ts CheckpointPromoteBody). */
const NAMED_ALIAS = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;

export function parseCheckpointModelName(model: string): CheckpointRef | { invalidAlias: string } | null {
  const match = ARTIFACT_NAME.exec(model);
  if (!match) return null;
  const [, entity, project, name, alias] = match as unknown as [string, string, string, string, string | undefined];
  if (alias === undefined || alias === 'latest') return { entity, project, name, step: 'latest' };
  const step = /^step(\d+)$/.exec(alias);
  if (step) return { entity, project, name, step: Number(step[1]) };
  if (NAMED_ALIAS.test(alias)) return { entity, project, name, step: { alias } };
  return { invalidAlias: alias };
}
