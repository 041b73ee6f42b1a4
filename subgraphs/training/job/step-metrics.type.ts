import { Field, Float, Int, ObjectType } from 'type-graphql';
import { JSONObjectScalar } from '../../../platform/graphql/scalars.js';

/**
 * The metrics of one optimizer step, as the trainer reported them (a job's gradient_step events): the usual
 * curves as typed fields (null when the trainer does not report them) and every reported value in `values`.
 * The embedded RL trainer reports step, loss, grad_norm, learning_rate, reward, reward_std_dev, kl, mean_ratio and
 * counts; the SFT trainer step, total_steps, loss, grad_norm, learning_rate, num_trainable_tokens and
 * tokens_per_second; remote trainers what they choose.
 */
@ObjectType('TrainingStepMetrics', { description: 'The metrics of one optimizer step of a training job, for loss, reward and gradient-norm curves' })
export class TrainingStepMetrics {
  @Field(() => Int, { description: "The step within the job (the trainer's `step`, else the step's position from 1)" }) step!: number;
  @Field(() => Float, { nullable: true, description: 'Training loss' }) loss!: number | null;
  @Field(() => Float, { nullable: true, description: 'Mean reward of the trajectories of the step (RL)' }) reward!: number | null;
  @Field(() => Float, { nullable: true, description: 'Mean standard deviation of rewards within a group (RL)' }) rewardStdDev!: number | null;
  @Field(() => Float, { nullable: true, description: 'Norm of the gradient before clipping' }) gradNorm!: number | null;
  @Field(() => Float, { nullable: true, description: 'Learning rate of the step' }) learningRate!: number | null;
  @Field(() => Float, { nullable: true, description: 'KL divergence from the sampling policy (RL)' }) kl!: number | null;
  @Field(() => Int, { nullable: true, description: 'Tokens trained on in the step' }) numTrainableTokens!: number | null;
  @Field(() => Int, { nullable: true, description: 'Steps the job will take in all (SFT)' }) totalSteps!: number | null;
  @Field(() => JSONObjectScalar, { description: 'Every metric the trainer reported for the step, by its name (numbers)' }) values!: Record<string, unknown>;
  @Field(() => Date, { description: 'When the step was recorded' }) recordedAt!: Date;
}

const number = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);
const integer = (value: unknown): number | null => {
  const n = number(value);
  return n !== null && Number.isSafeInteger(n) && Math.abs(n) <= 2 ** 31 - 1 ? n : null;
};

/** One gradient_step event's data as the typed series point; `position` is its 1-based place among the job's steps. */
export function toStepMetrics(data: Record<string, unknown>, recordedAt: Date, position: number): TrainingStepMetrics {
  return Object.assign(new TrainingStepMetrics(), {
    step: integer(data.step) ?? position,
    loss: number(data.loss),
    reward: number(data.reward),
    rewardStdDev: number(data.reward_std_dev),
    gradNorm: number(data.grad_norm),
    learningRate: number(data.learning_rate),
    kl: number(data.kl),
    numTrainableTokens: integer(data.num_trainable_tokens),
    totalSteps: integer(data.total_steps),
    values: data,
    recordedAt,
  });
}
