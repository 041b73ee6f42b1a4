import { INT4_MAX } from '../../platform/validation.js';
import { Type, type Static } from '@sinclair/typebox';

/**
 * Request schemas of Family C, in the shapes the ART serverless client sends. The REST routes declare them, the
 * GraphQL mutations take typed inputs generated from them (training.inputs.ts, `graphqlName` annotations), and the
 * service validates what either sends with them, so both surfaces share one rule set.
 * Unknown fields are accepted (ART adds fields between releases) unless a field's meaning would be lost; where they
 * are stored (trajectories, configs) the GraphQL input carries them in an `extra` field (`graphqlExtra`).
 */
const Name = Type.String({ minLength: 1, maxLength: 128 });

export const ModelCreateBody = Type.Object(
  {
    entity: Type.Optional(Type.Union([Name, Type.Null()], { description: "The team that owns the model; null or absent = the caller's default entity" })),
    project: Type.String({ minLength: 1, maxLength: 128, description: 'The project the model belongs to (created on first use)' }),
    name: Type.String({ minLength: 1, maxLength: 128, description: 'The model name, unique in the project' }),
    base_model: Type.String({ minLength: 1, description: 'The base model the LoRA adapters are trained on (e.g. trellis-tiny)' }),
    return_existing: Type.Optional(Type.Boolean({ default: false, description: 'Return the model of that name when it exists (same base model) instead of failing' })),
  },
  { graphqlName: 'TrainingModelCreateInput', description: 'A new trainable model. Also at POST /training/v1/preview/models' },
);
export type ModelCreateBody = Static<typeof ModelCreateBody>;

export const CheckpointDeleteBody = Type.Object(
  {
    steps: Type.Array(Type.Integer({ minimum: 0, maximum: INT4_MAX }), { maxItems: 10_000, description: 'The training steps whose checkpoints to delete' }),
  },
  { graphqlName: 'TrainingCheckpointDeleteInput', description: 'Checkpoints to delete, by step. Also at DELETE /training/v1/preview/models/{model_id}/checkpoints' },
);
export type CheckpointDeleteBody = Static<typeof CheckpointDeleteBody>;

/** Names `latest` and `step<N>` are computed from the steps; a named alias may not take them. */
export const RESERVED_CHECKPOINT_ALIAS = /^(latest|step\d+)$/;

export const CheckpointPromoteBody = Type.Object(
  {
    step: Type.Integer({ minimum: 1, maximum: INT4_MAX, description: 'The training step of the checkpoint to promote' }),
    alias: Type.String({
      pattern: '^[A-Za-z][A-Za-z0-9_.-]{0,63}$',
      description:
        'The alias to point at it (e.g. production): one checkpoint per alias per model, moved from wherever it was. Not latest or step<N>, which are computed',
    }),
  },
  { graphqlName: 'TrainingCheckpointPromoteInput', description: "Gives a model's checkpoint a named alias (promotion)" },
);
export type CheckpointPromoteBody = Static<typeof CheckpointPromoteBody>;

/** An OpenAI message (`role`) or an OpenAI `Choice` (`index`, `message`, `logprobs?`): ART mixes both. */
const MessageOrChoice = Type.Object({}, { additionalProperties: true });

export const Trajectory = Type.Object(
  {
    messages_and_choices: Type.Array(MessageOrChoice, {
      description: 'The conversation: OpenAI messages (with `role`) and the sampled Choices (`index`, `message`, `logprobs`) in order',
    }),
    tools: Type.Optional(Type.Union([Type.Array(Type.Any()), Type.Null()], { description: 'The OpenAI tool definitions offered to the model' })),
    additional_histories: Type.Optional(Type.Union([Type.Array(Type.Any()), Type.Null()], { description: 'Further conversations of the same rollout' })),
    reward: Type.Optional(Type.Number({ default: 0, description: 'The reward the rollout earned' })),
    metrics: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Any()), Type.Null()], { description: 'Metrics of the rollout by name' })),
    metadata: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Any()), Type.Null()], { description: 'Free-form metadata of the rollout' })),
    logs: Type.Optional(Type.Union([Type.Array(Type.Any()), Type.Null()], { description: 'Log lines of the rollout' })),
  },
  { graphqlName: 'TrajectoryInput', graphqlExtra: 'extra', description: 'One rollout: the conversation the model had and the reward it earned' },
);

export const TrajectoryGroup = Type.Object(
  {
    trajectories: Type.Array(Trajectory, { description: 'The rollouts of the group (rewards are compared within a group)' }),
    exceptions: Type.Optional(Type.Union([Type.Array(Type.Any()), Type.Null()], { description: 'Errors raised by rollouts of the group' })),
    metadata: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Any()), Type.Null()], { description: 'Free-form metadata of the group' })),
    metrics: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Any()), Type.Null()], { description: 'Metrics of the group by name' })),
    logs: Type.Optional(Type.Union([Type.Array(Type.Any()), Type.Null()], { description: 'Log lines of the group' })),
  },
  { graphqlName: 'TrajectoryGroupInput', graphqlExtra: 'extra', description: 'Rollouts of the same scenario, whose rewards are compared with each other' },
);
export type TrajectoryGroup = Static<typeof TrajectoryGroup>;

export const TrajectoryLogBody = Type.Object(
  {
    model_id: Type.Optional(Type.String({ description: 'The model (must be the one the trajectories are logged for, when given)' })),
    split: Type.String({ minLength: 1, maxLength: 64, description: 'The split the groups belong to (ART logs `train` and `val`)' }),
    trajectory_groups: Type.Array(TrajectoryGroup, { description: 'The trajectory groups to store' }),
  },
  { graphqlName: 'TrajectoryLogInput', description: 'Trajectory groups to log for a split. Also at POST /training/v1/preview/models/{model_id}/log' },
);
export type TrajectoryLogBody = Static<typeof TrajectoryLogBody>;

/** Every field optional and nullable; fields a trainer does not implement are recorded on the job and ignored. */
export const ExperimentalConfig = Type.Union(
  [
    Type.Object(
      {
        learning_rate: Type.Optional(Type.Union([Type.Number({ exclusiveMinimum: 0 }), Type.Null()], { description: 'Optimizer learning rate' })),
        loss_fn: Type.Optional(
          Type.Union([Type.Literal('cispo'), Type.Literal('ppo'), Type.Null()], {
            graphqlName: 'TrainingLossFunction',
            description: 'The RL loss',
            graphqlValues: { cispo: 'Clipped importance-sampling policy optimisation (the default)', ppo: 'Proximal policy optimisation' },
          }),
        ),
        epsilon: Type.Optional(Type.Union([Type.Number(), Type.Null()], { description: 'Lower clipping bound of the importance ratio' })),
        epsilon_high: Type.Optional(Type.Union([Type.Number(), Type.Null()], { description: 'Upper clipping bound of the importance ratio' })),
        scale_rewards: Type.Optional(Type.Union([Type.Boolean(), Type.Null()], { description: "Divide advantages by the group's reward standard deviation" })),
        normalize_advantages: Type.Optional(Type.Union([Type.Boolean(), Type.Null()], { description: 'Normalise advantages over the batch' })),
        advantage_balance: Type.Optional(Type.Union([Type.Number(), Type.Null()], { description: 'Weight of positive against negative advantages' })),
        kl_penalty_coef: Type.Optional(Type.Union([Type.Number(), Type.Null()], { description: 'Coefficient of the KL penalty against the base model' })),
        allow_training_without_logprobs: Type.Optional(
          Type.Union([Type.Boolean(), Type.Null()], {
            description: 'Recorded as sent; choices without sampling logprobs are always trained, scored under the checkpoint the job starts from',
          }),
        ),
        precalculate_logprobs: Type.Optional(Type.Union([Type.Boolean(), Type.Null()], { description: 'Compute reference logprobs before training' })),
        importance_sampling_level: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'Where importance ratios are taken (token or sequence)' })),
      },
      {
        additionalProperties: true,
        graphqlName: 'TrainingExperimentalConfigInput',
        graphqlExtra: 'extra',
        description: 'Trainer settings; each optional, and those a trainer does not implement are recorded on the job and ignored',
      },
    ),
    Type.Null(),
  ],
  { description: 'Trainer settings (ART experimental_config)' },
);

export const RlJobCreateBody = Type.Object(
  {
    model_id: Type.String({ format: 'uuid', description: 'The model to train' }),
    trajectory_groups: Type.Array(TrajectoryGroup, { minItems: 1, description: 'The scored rollouts to learn from (at least one group)' }),
    experimental_config: Type.Optional(ExperimentalConfig),
  },
  { graphqlName: 'RlTrainingJobCreateInput', description: 'A reinforcement-learning job. Also at POST /training/v1/preview/training-jobs' },
);
export type RlJobCreateBody = Static<typeof RlJobCreateBody>;

export const SftJobCreateBody = Type.Object(
  {
    model_id: Type.String({ format: 'uuid', description: 'The model to fine-tune' }),
    // `wandb-artifact:///{entity}/{project}/{artifact}:{version}`: its syntax and whether it names a readable dataset
    // are checked in one place, sft/dataset-resolver.ts (422 naming training_data_url, OpenAI error shape).
    training_data_url: Type.String({
      minLength: 1,
      maxLength: 2048,
      description: 'The dataset: wandb-artifact:///{entity}/{project}/{artifact}:{version}, an artifact holding train.jsonl',
    }),
    config: Type.Optional(
      Type.Union(
        [
          Type.Object(
            {
              batch_size: Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: 1024 }), Type.Null()], { description: 'Examples per optimizer step' })),
              // ART's train_sft_from_file always sends a list (its own schedule, one rate per batch).
              learning_rate: Type.Optional(
                Type.Union(
                  [Type.Number({ exclusiveMinimum: 0 }), Type.Array(Type.Number({ minimum: 0 }), { minItems: 1, maxItems: 100_000 }), Type.Null()],
                  {
                    description:
                      'Optimizer learning rate: a number (the peak of a warmup + cosine schedule) or a list of numbers, one per batch in order (the list must have exactly as many rates as the job trains batches, else the job fails)',
                  },
                ),
              ),
              metric_logging: Type.Optional(Type.Any({ description: 'Where the client logs metrics (recorded, not used)' })),
            },
            { additionalProperties: true, graphqlName: 'SftTrainingConfigInput', graphqlExtra: 'extra', description: 'Fine-tuning settings' },
          ),
          Type.Null(),
        ],
        { description: 'Fine-tuning settings' },
      ),
    ),
    experimental_config: Type.Optional(ExperimentalConfig),
  },
  { graphqlName: 'SftTrainingJobCreateInput', description: 'A supervised fine-tuning job. Also at POST /training/v1/preview/sft-training-jobs' },
);
export type SftJobCreateBody = Static<typeof SftJobCreateBody>;

/** A column name of a Weave Dataset's rows. */
const ColumnName = Type.String({ minLength: 1, maxLength: 128 });

/**
 * A Weave Dataset version (tracing's objects, e.g. one built from traces) to turn into the chat JSONL an SFT job
 * trains on: one `{"messages": [...]}` line per row — an optional system message, the prompt column (text = a user
 * message; a list of `{role, content}` messages = those messages) and the completion column as the assistant's answer.
 */
export const TraceDatasetSftExportBody = Type.Object(
  {
    entity: Type.Optional(Type.Union([Name, Type.Null()], { description: "The dataset's team; null or absent = the caller's default entity" })),
    project: Type.String({ minLength: 1, maxLength: 128, description: 'The project holding the Dataset (the artifact is created there too)' }),
    dataset: Type.String({ minLength: 1, maxLength: 128, description: 'The Dataset object name' }),
    version: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 128 }), Type.Null()], { description: 'v<N>, a digest, or latest (the default)' })),
    prompt_column: Type.Optional(Type.Union([ColumnName, Type.Null()], { description: 'The column with the prompt: text, or a list of chat messages (default question)' })),
    completion_column: Type.Optional(Type.Union([ColumnName, Type.Null()], { description: "The column with the assistant's answer to learn (default expected)" })),
    system_prompt: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 20_000 }), Type.Null()], { description: 'A system message put first in every line' })),
    artifact: Type.Optional(
      Type.Union([Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$' }), Type.Null()], {
        description: 'The registry collection the JSONL is saved in, as the next version (default <dataset>-sft)',
      }),
    ),
  },
  { graphqlName: 'TraceDatasetSftExportInput', description: 'A Dataset version to export as SFT chat JSONL (train.jsonl) into the registry' },
);
export type TraceDatasetSftExportBody = Static<typeof TraceDatasetSftExportBody>;

export const SftJobFromTraceDatasetBody = Type.Object(
  {
    model_id: Type.String({ format: 'uuid', description: 'The model to fine-tune' }),
    dataset: TraceDatasetSftExportBody,
    config: SftJobCreateBody.properties.config,
  },
  { graphqlName: 'SftTrainingJobFromDatasetInput', description: 'An SFT job on a model from a Weave Dataset version, exported first as train.jsonl' },
);
export type SftJobFromTraceDatasetBody = Static<typeof SftJobFromTraceDatasetBody>;

/** The remote trainer protocol (docs/training.md): what a trainer machine sends about its assignment. */
const WorkerId = Type.String({ minLength: 1, maxLength: 200, description: 'The trainer machine holding the lease' });

export const WorkerStepBody = Type.Object(
  {
    worker_id: WorkerId,
    metrics: Type.Record(Type.String(), Type.Number(), { description: 'The step\'s metrics by name (loss, grad_norm, learning_rate, reward, …), every value a finite number' }),
  },
  { graphqlName: 'TrainingStepReportInput', description: 'One optimizer step of a leased assignment. Also at POST /training/v1/workers/jobs/{job_id}/steps' },
);
export type WorkerStepBody = Static<typeof WorkerStepBody>;

/** REST's form of a finished assignment: the adapter files base64 by file name. */
export const WorkerCompleteBody = Type.Object({
  worker_id: WorkerId,
  step: Type.Integer({ minimum: 1, maximum: INT4_MAX }),
  files: Type.Record(Type.String(), Type.String()),
});
export type WorkerCompleteBody = Static<typeof WorkerCompleteBody>;

/** The graph's form of the same result: the files as a list (GraphQL has no maps); the REST route converts. */
export const WorkerResultInput = Type.Object(
  {
    worker_id: WorkerId,
    step: Type.Integer({ minimum: 1, maximum: INT4_MAX, description: 'The training step the adapter reached' }),
    files: Type.Array(
      Type.Object(
        {
          name: Type.String({ minLength: 1, description: 'The file name (adapter_config.json, adapter_model.safetensors)' }),
          content_base64: Type.String({ description: 'The file content, base64' }),
        },
        { graphqlName: 'TrainingAdapterFileInput', description: 'One file of a LoRA adapter' },
      ),
      { description: 'The adapter files; adapter_config.json and adapter_model.safetensors are required' },
    ),
  },
  { graphqlName: 'TrainingWorkResultInput', description: 'The trained adapter of a leased assignment. Also at POST /training/v1/workers/jobs/{job_id}/complete' },
);
export type WorkerResultInput = Static<typeof WorkerResultInput>;

export const ModelIdParams = Type.Object({ model_id: Type.String() });
export const JobIdParams = Type.Object({ training_job_id: Type.String() });
