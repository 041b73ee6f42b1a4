import { INT4_MAX } from '../../platform/validation.js';
import { Type, type Static } from '@sinclair/typebox';

/**
 * Request schemas of Family C, in the shapes the ART serverless client sends. The REST routes declare them and
 * the GraphQL mutations validate the same JSON with them (validateOrThrow), so both surfaces share one rule set.
 * Unknown fields are accepted (ART adds fields between releases) unless a field's meaning would be lost.
 */
const Name = Type.String({ minLength: 1, maxLength: 128 });

export const ModelCreateBody = Type.Object({
  entity: Type.Optional(Type.Union([Name, Type.Null()])),
  project: Name,
  name: Name,
  base_model: Type.String({ minLength: 1 }),
  return_existing: Type.Optional(Type.Boolean({ default: false })),
});
export type ModelCreateBody = Static<typeof ModelCreateBody>;

export const CheckpointListQuery = Type.Object({
  after: Type.Optional(Type.String({ format: 'uuid' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  order: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')], { default: 'asc' })),
});
export type CheckpointListQuery = Static<typeof CheckpointListQuery>;

export const CheckpointDeleteBody = Type.Object({
  steps: Type.Array(Type.Integer({ minimum: 0, maximum: INT4_MAX }), { maxItems: 10_000 }),
});
export type CheckpointDeleteBody = Static<typeof CheckpointDeleteBody>;

/** An OpenAI message (`role`) or an OpenAI `Choice` (`index`, `message`, `logprobs?`): ART mixes both. */
const MessageOrChoice = Type.Object({}, { additionalProperties: true });

export const Trajectory = Type.Object({
  messages_and_choices: Type.Array(MessageOrChoice),
  tools: Type.Optional(Type.Union([Type.Array(Type.Any()), Type.Null()])),
  additional_histories: Type.Optional(Type.Union([Type.Array(Type.Any()), Type.Null()])),
  reward: Type.Optional(Type.Number({ default: 0 })),
  metrics: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Any()), Type.Null()])),
  metadata: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Any()), Type.Null()])),
  logs: Type.Optional(Type.Union([Type.Array(Type.Any()), Type.Null()])),
});

export const TrajectoryGroup = Type.Object({
  trajectories: Type.Array(Trajectory),
  exceptions: Type.Optional(Type.Union([Type.Array(Type.Any()), Type.Null()])),
  metadata: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Any()), Type.Null()])),
  metrics: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Any()), Type.Null()])),
  logs: Type.Optional(Type.Union([Type.Array(Type.Any()), Type.Null()])),
});
export type TrajectoryGroup = Static<typeof TrajectoryGroup>;

export const TrajectoryLogBody = Type.Object({
  model_id: Type.Optional(Type.String()),
  split: Type.String({ minLength: 1, maxLength: 64 }),
  trajectory_groups: Type.Array(TrajectoryGroup),
});
export type TrajectoryLogBody = Static<typeof TrajectoryLogBody>;

/** Every field optional and nullable; fields a trainer does not implement are recorded on the job and ignored. */
export const ExperimentalConfig = Type.Union([
  Type.Object(
    {
      learning_rate: Type.Optional(Type.Union([Type.Number({ exclusiveMinimum: 0 }), Type.Null()])),
      loss_fn: Type.Optional(Type.Union([Type.Literal('cispo'), Type.Literal('ppo'), Type.Null()])),
      epsilon: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
      epsilon_high: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
      scale_rewards: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
      normalize_advantages: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
      advantage_balance: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
      kl_penalty_coef: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
      allow_training_without_logprobs: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
      precalculate_logprobs: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
      importance_sampling_level: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    },
    { additionalProperties: true },
  ),
  Type.Null(),
]);

export const RlJobCreateBody = Type.Object({
  model_id: Type.String({ format: 'uuid' }),
  trajectory_groups: Type.Array(TrajectoryGroup, { minItems: 1 }),
  experimental_config: Type.Optional(ExperimentalConfig),
});
export type RlJobCreateBody = Static<typeof RlJobCreateBody>;

export const SftJobCreateBody = Type.Object({
  model_id: Type.String({ format: 'uuid' }),
  // `wandb-artifact:///{entity}/{project}/{artifact}:{version}`: its syntax and whether it names a readable dataset
  // are checked in one place, sft/dataset-resolver.ts (422 naming training_data_url, OpenAI error shape).
  training_data_url: Type.String({ minLength: 1, maxLength: 2048 }),
  config: Type.Optional(
    Type.Union([
      Type.Object(
        {
          batch_size: Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: 1024 }), Type.Null()])),
          learning_rate: Type.Optional(Type.Union([Type.Number({ exclusiveMinimum: 0 }), Type.Null()])),
          metric_logging: Type.Optional(Type.Any()),
        },
        { additionalProperties: true },
      ),
      Type.Null(),
    ]),
  ),
  experimental_config: Type.Optional(ExperimentalConfig),
});
export type SftJobCreateBody = Static<typeof SftJobCreateBody>;

export const JobEventsQuery = Type.Object({
  after: Type.Optional(Type.String({ format: 'uuid' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
});
export type JobEventsQuery = Static<typeof JobEventsQuery>;

export const ModelIdParams = Type.Object({ model_id: Type.String() });
export const JobIdParams = Type.Object({ training_job_id: Type.String() });
