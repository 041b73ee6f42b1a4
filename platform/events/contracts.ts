/**
 * Platform events that one subgraph publishes for another to consume: the name and payload of each, in one
 * place, so producer and consumer cannot drift apart. (Registry events that automations watch are described
 * in subgraphs/registry; these are the cross-family ones.)
 */

/**
 * Chat completions served by Family B for a named project, to be recorded as Family A calls: one event per batch of
 * a project's traced completions by one caller (payload InferenceCompletionsPayload). An event per completion made
 * the outbox the largest part of a traced request's cost (a row and four index entries each).
 */
export const INFERENCE_COMPLETIONS_EVENT = 'inference.completions';
/**
 * One chat completion (payload InferenceCompletionPayload): what earlier versions published. No longer published;
 * still recorded, so that events waiting in the outbox at an upgrade become calls too.
 */
export const INFERENCE_COMPLETION_EVENT = 'inference.completion';

/**
 * Tracing → tracing's monitors: calls of a project that has an active monitor ended (their end was written). One event
 * per written batch and project, published in the transaction that wrote the ends, and only for projects with an
 * active monitor, so ingestion pays nothing for the others (payload TracingCallsEndedPayload;
 * `event.entity`/`project` are the calls' project).
 */
export const TRACING_CALLS_ENDED_EVENT = 'tracing.calls_ended';

export interface TracingCallsEndedPayload {
  /** Ids of the calls whose end was written (a call may appear again in a later event, e.g. re-ended). */
  call_ids: string[];
}

/**
 * Tracing → automations: a monitor's mean score over its threshold's window fell below the threshold (with at least
 * its minimum of scored calls in the window). Published once per crossing, in the transaction that recorded the
 * scores that crossed it; it is published again only after the mean has come back to the threshold or above. The
 * type is the automation event kind it triggers; `event.entity`/`project` are the monitor's project. The payload
 * carries the mean as `metric` (`name` the monitor's name, `value` the mean, `step` the samples), so automation
 * payload templates read it as ${metric_name} and ${metric_value}.
 */
export const MONITOR_SCORE_DROP_EVENT = 'MONITOR_SCORE_DROP';

export interface MonitorScoreDropPayload {
  metric: { name: string; value: number; step: number };
  monitor: { id: string; name: string; below: number; window_minutes: number; min_samples: number; samples: number; mean_score: number };
}

/**
 * Event types deleted from the outbox as soon as every durable consumer of the type has applied them, whatever the
 * event retention: they carry whole requests and answers (a flush's traced completions each), their consumer turned
 * them into rows of its own (calls), and kept they would be most of the event log's size.
 */
export const PRUNED_ONCE_CONSUMED_EVENT_TYPES: readonly string[] = [INFERENCE_COMPLETIONS_EVENT, INFERENCE_COMPLETION_EVENT, TRACING_CALLS_ENDED_EVENT];

/** A completed Weave call (start and end fields together). */
export interface CompletedCallRecord {
  id: string;
  trace_id: string;
  /** Names the model, e.g. `inference.chat.completions/llama-3-8b`. */
  op_name: string;
  started_at: string;
  ended_at: string;
  /** The request: messages and the parameters that were set. */
  inputs: Record<string, unknown>;
  /** The first choice (all choices under `choices` when n > 1); null when the request failed. */
  output: unknown;
  /** Weave's shape: usage keyed by model. */
  summary: { usage: Record<string, { requests: number; prompt_tokens: number; completion_tokens: number; total_tokens: number }> };
  attributes: Record<string, unknown>;
  exception: string | null;
}

export interface InferenceCompletionPayload {
  /** User id of the caller, recorded as the call's wb_user_id. */
  author_id: string;
  call: CompletedCallRecord;
}

export interface InferenceCompletionsPayload {
  /** User id of the caller, recorded as the calls' wb_user_id. */
  author_id: string;
  /** In the order the completions finished. */
  calls: CompletedCallRecord[];
}

/**
 * Family C → registry: a training job's run and checkpoints, recorded by the registry as a run (state and metrics)
 * and artifact versions (collection = the model's name, aliases `step{N}` and `latest`), so automations can watch
 * them. Published by the training subgraph in the transaction that makes the change; `event.entity`/`project` are
 * the model's, `event.author` the username that submitted the job.
 */
export const TRAINING_RUN_STARTED_EVENT = 'training.run_started';
export const TRAINING_CHECKPOINT_SAVED_EVENT = 'training.checkpoint_saved';
export const TRAINING_RUN_FINISHED_EVENT = 'training.run_finished';
export const TRAINING_RUN_FAILED_EVENT = 'training.run_failed';
/** A running job was cancelled by its user: the run ends KILLED (the registry's state for a stopped run). */
export const TRAINING_RUN_KILLED_EVENT = 'training.run_killed';

interface TrainingRunRef {
  /** User id of whoever submitted the job. */
  author_id: string;
  model_id: string;
  model_name: string;
  base_model: string;
  /** The registry run's name (the model's `run_id`). */
  run_name: string;
  job_id: string;
}

export type TrainingRunStartedPayload = TrainingRunRef;

export interface TrainingCheckpointSavedPayload extends TrainingRunRef {
  step: number;
  /** Numeric metrics of the step. */
  metrics: Record<string, number>;
  /** The LoRA adapter files (PEFT layout), base64. */
  files: { path: string; content_base64: string }[];
}

export type TrainingRunFinishedPayload = TrainingRunRef;

export type TrainingRunKilledPayload = TrainingRunRef;

export interface TrainingRunFailedPayload extends TrainingRunRef {
  error_message: string;
}

/**
 * Family C → registry: a checkpoint was promoted — a named alias (`production`) of the model now points at the
 * checkpoint of `step`, wherever it pointed before. The registry moves the same alias onto that checkpoint's
 * artifact version (ADD_ARTIFACT_ALIAS, which automations watch, and what inference resolves
 * `{entity}/{project}/{model}:{alias}` through). Published in the transaction that moves the alias;
 * `event.entity`/`project` are the model's, `event.author` the promoter's username.
 */
export const TRAINING_CHECKPOINT_PROMOTED_EVENT = 'training.checkpoint_promoted';

export interface TrainingCheckpointPromotedPayload {
  /** User id of whoever promoted it. */
  author_id: string;
  model_id: string;
  model_name: string;
  base_model: string;
  step: number;
  alias: string;
  /** The step the alias pointed at before (null: it was new). */
  previous_step: number | null;
}

/**
 * Family C → registry: checkpoints of a model were deleted (the listed steps, or the whole model). The registry deletes
 * their artifact versions — with every alias on them (`step<N>`, `latest`, promoted ones such as `production`), so
 * `latest` falls back to the newest version left — and inference stops serving `{entity}/{project}/{model}:{alias}`
 * or `:v<N>` for a deleted checkpoint. Published in the transaction that deletes them; `event.entity`/`project` are
 * the model's, `event.author` the username of whoever deleted them.
 */
export const TRAINING_CHECKPOINTS_DELETED_EVENT = 'training.checkpoints_deleted';

export interface TrainingCheckpointsDeletedPayload {
  /** User id of whoever deleted the checkpoints. */
  author_id: string;
  model_id: string;
  model_name: string;
  /** The steps of the deleted checkpoints. */
  steps: number[];
}

/**
 * What training published on a deletion before TRAINING_CHECKPOINTS_DELETED_EVENT (2026-11-28): only the named aliases
 * of the deleted checkpoints, which the registry removed while keeping the versions. No longer published; the registry
 * still applies such events left in the log.
 */
export const TRAINING_CHECKPOINT_ALIASES_REMOVED_EVENT = 'training.checkpoint_aliases_removed';

export interface TrainingCheckpointAliasesRemovedPayload {
  author_id: string;
  model_id: string;
  model_name: string;
  /** Each removed alias with the step of the checkpoint it pointed at. */
  aliases: { alias: string; step: number }[];
}

/**
 * Identity → every process that caches principals (the edge's authenticator, open subscriptions): a NOTIFY on this
 * channel, sent in the transaction that changes what a user's principal holds (team memberships and roles, resource
 * roles, a revoked key), so it is delivered at commit and never for a change that rolled back. The payload is the
 * affected user's id; an empty payload (a listener's wake-up after a reconnect) means any principal may have
 * changed. A wake-up only: the receiver re-resolves the principal, nothing is read from the notification but the id.
 */
export const PRINCIPAL_CHANGED_CHANNEL = 'trellis_identity_principal_changed';

/**
 * Training → inference: one chat completion served by the training subgraph (a base model or a checkpoint), so
 * inference's usage accounting counts every path to a model (`Project.inferenceUsage`). Every outcome is one event,
 * like inference's own usage records; `event.entity`/`project` are where it is counted (the checkpoint's project,
 * else the caller's default entity and project `inference`), `event.author` the caller's username. Published off
 * the request's path in small batches; inference's consumer writes one usage record per event, exactly once.
 */
export const TRAINING_CHAT_COMPLETION_EVENT = 'training.chat_completion';

export interface TrainingChatCompletionPayload {
  /** ISO time the request arrived. */
  created_at: string;
  /** The model as requested (`trellis-tiny`, `wandb-artifact:///entity/project/name:step3`). */
  model: string;
  api_key_id: string;
  user_id: string;
  /** The OpenAI `user` parameter, when sent. */
  end_user: string | null;
  stream: boolean;
  /** The status the client was answered with (499: it went away mid-stream). */
  status: number;
  error_code: string | null;
  error_message: string | null;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  latency_ms: number;
  first_token_ms: number | null;
  request_id: string | null;
}
