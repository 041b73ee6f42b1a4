import { encodeCursor } from '../../platform/graphql/connection.js';

/**
 * How the training routes write the graph's answers in the ART/OpenAI wire shapes (the same JSON as before the
 * graph was typed: the same keys, in the same order).
 */
type Json = Record<string, any>;

export const MODEL_FIELDS = 'id entity project name baseModel runId';
export const JOB_FIELDS = 'id modelId kind status trainingStart trainingEnd errorMessage createdAt';

export const toModel = (model: Json) => ({
  id: model.id,
  entity: model.entity,
  project: model.project,
  name: model.name,
  base_model: model.baseModel,
  run_id: model.runId,
});

export const toJob = (job: Json) => ({
  id: job.id,
  model_id: job.modelId,
  kind: job.kind,
  status: job.status,
  training_start: job.trainingStart,
  training_end: job.trainingEnd,
  error_message: job.errorMessage,
  created_at: job.createdAt,
});

/** A connection page as the hosted API's list envelope (`object: "list"`, `first_id`, `last_id`, `has_more`). */
export const toList = (page: { nodes: Json[]; pageInfo: { hasNextPage: boolean } }, item: (value: Json) => unknown) => ({
  object: 'list',
  data: page.nodes.map(item),
  first_id: page.nodes[0]?.id ?? null,
  last_id: page.nodes.at(-1)?.id ?? null,
  has_more: page.pageInfo.hasNextPage,
});

/** The REST API's `after` (the id of the last item seen) as the connection's cursor (checkpoints, events). */
export const cursorOfId = (id: string | undefined): string | null => (id === undefined || id === '' ? null : encodeCursor(id));

/** Where a connection's paging argument problems lie in the REST query string. */
export const pagingLocation = (loc: (string | number)[]): (string | number)[] =>
  loc[0] === 'first' ? ['query', 'limit', ...loc.slice(1)] : loc[0] === 'after' || loc[0] === 'order' ? ['query', ...loc] : loc;

export const COMPLETION_SELECTION = `id object created model
  choices { index message { role content } finishReason logprobs { content { token logprob bytes topLogprobs { token logprob bytes } } } }
  usage { promptTokens completionTokens totalTokens }`;

/** The typed completion as OpenAI's JSON, keys in the order the service builds them. */
export function toOpenAICompletion(completion: Json): Json {
  const top = (entry: Json) => ({ token: entry.token, logprob: entry.logprob, bytes: entry.bytes });
  return {
    id: completion.id,
    object: completion.object,
    created: completion.created,
    model: completion.model,
    choices: (completion.choices as Json[]).map((choice) => ({
      index: choice.index,
      message: { role: choice.message.role, content: choice.message.content },
      finish_reason: choice.finishReason,
      logprobs: choice.logprobs
        ? { content: (choice.logprobs.content as Json[]).map((entry) => ({ ...top(entry), top_logprobs: (entry.topLogprobs as Json[]).map(top) })) }
        : null,
    })),
    usage: { prompt_tokens: completion.usage.promptTokens, completion_tokens: completion.usage.completionTokens, total_tokens: completion.usage.totalTokens },
  };
}

export const SYSTEM_CHECK_SELECTION = 'success checks { name success duration errors details }';

/** The typed system check as the report's JSON: `{success, checks: {<name>: {success, duration, errors, details?}}}`. */
export const toSystemCheck = (report: Json) => ({
  success: report.success,
  checks: Object.fromEntries(
    (report.checks as Json[]).map((check) => [
      check.name,
      { success: check.success, duration: check.duration, errors: check.errors, ...(check.details ? { details: check.details } : {}) },
    ]),
  ),
});

export const WORK_SELECTION = 'jobId kind baseModel config trajectoryGroups examples adapter { id files { name contentBase64 } }';

/** A leased assignment as the remote protocol's JSON (docs/training.md). */
export const toWork = (work: Json | null) =>
  work && {
    job_id: work.jobId,
    kind: work.kind,
    base_model: work.baseModel,
    config: work.config,
    ...(work.kind === 'RL' ? { trajectory_groups: work.trajectoryGroups } : { examples: work.examples }),
    adapter: work.adapter
      ? { id: work.adapter.id, files: Object.fromEntries((work.adapter.files as Json[]).map((file) => [file.name, file.contentBase64])) }
      : null,
  };
