import { Field, ID, ObjectType } from 'type-graphql';
import { JSONObjectScalar, JSONScalar } from '../../../platform/graphql/scalars.js';
import { TrainingJobKind } from '../job/job.type.js';

@ObjectType('TrainingAdapterFile', { description: 'One file of a LoRA adapter' })
export class TrainingAdapterFile {
  @Field(() => String, { description: 'The file name (adapter_config.json, adapter_model.safetensors)' }) name!: string;
  @Field(() => String, { description: 'The file content, base64' }) contentBase64!: string;
}

@ObjectType('TrainingWorkAdapter', { description: 'The checkpoint an assignment continues from' })
export class TrainingWorkAdapter {
  @Field(() => ID, { description: 'The checkpoint id' }) id!: string;
  @Field(() => [TrainingAdapterFile], { description: "The checkpoint's adapter files" }) files!: TrainingAdapterFile[];
}

@ObjectType('TrainingWorkAssignment', { description: 'A training job handed to a remote trainer: what to train, on what, from which adapter' })
export class TrainingWorkAssignment {
  @Field(() => ID, { description: 'The job the assignment trains' }) jobId!: string;
  @Field(() => TrainingJobKind, { description: 'RL or SFT' }) kind!: TrainingJobKind;
  @Field(() => String, { description: 'The base model to load' }) baseModel!: string;
  @Field(() => JSONObjectScalar, { nullable: true, description: "The job's trainer settings as submitted (free-form)" }) config!: Record<string, unknown> | null;
  @Field(() => JSONScalar, { nullable: true, description: 'RL: the trajectory groups to learn from, as submitted' }) trajectoryGroups!: unknown[] | null;
  @Field(() => JSONScalar, { nullable: true, description: 'SFT: the examples (messages, tools) read from train.jsonl' }) examples!: unknown[] | null;
  @Field(() => TrainingWorkAdapter, { nullable: true, description: "The model's latest checkpoint to continue from; null trains a fresh adapter" })
  adapter!: TrainingWorkAdapter | null;
}

type Json = Record<string, any>;

/** The assignment as the service leases it (the remote protocol's JSON) as the typed object. */
export function toTrainingWorkAssignment(work: Json): TrainingWorkAssignment {
  const adapter = work.adapter as { id: string; files: Record<string, string> } | null;
  return Object.assign(new TrainingWorkAssignment(), {
    jobId: work.job_id,
    kind: work.kind,
    baseModel: work.base_model,
    config: work.config ?? null,
    trajectoryGroups: work.trajectory_groups ?? null,
    examples: work.examples ?? null,
    adapter: adapter
      ? Object.assign(new TrainingWorkAdapter(), {
          id: adapter.id,
          files: Object.entries(adapter.files).map(([name, contentBase64]) => Object.assign(new TrainingAdapterFile(), { name, contentBase64 })),
        })
      : null,
  });
}
