/**
 * The public inference name of a training checkpoint: `{entity}/{project}/{model}:{alias}` — the registry's name of
 * the checkpoint's artifact version (collection = the training model's name), with a promoted alias such as
 * `production`, or `latest` / `step<N>`. Catalog ids never have this shape (no catalog model is looked up this way
 * unless the catalog lacks the id).
 */
export interface PromotedCheckpointName {
  entity: string;
  project: string;
  model: string;
  alias: string;
}

const NAME = /^([A-Za-z0-9][A-Za-z0-9_.-]*)\/([A-Za-z0-9][A-Za-z0-9_.-]*)\/([A-Za-z0-9][A-Za-z0-9_.-]*):([A-Za-z][A-Za-z0-9_.-]{0,63})$/;

export function parsePromotedCheckpointName(model: string): PromotedCheckpointName | null {
  const match = NAME.exec(model);
  if (!match) return null;
  const [, entity, project, name, alias] = match as unknown as [string, string, string, string, string];
  return { entity, project, model: name, alias };
}
