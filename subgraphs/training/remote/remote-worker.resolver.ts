import { Arg, Ctx, ID, Mutation, Resolver } from 'type-graphql';
import { requirePlatformAdmin } from '../../../platform/auth/authorize.js';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import type { TrainingServices } from '../services.js';
import { AT_BODY, TrainingStepReportInput, TrainingWorkResultInput } from '../training.inputs.js';
import { TrainingWorkAssignment, toTrainingWorkAssignment } from './remote-work.type.js';

/** The remote trainer protocol (docs/training.md). Trainer machines authenticate with a platform operator's key. */
@Resolver()
export class RemoteWorkerResolver {
  constructor(private readonly services: TrainingServices) {}

  @Mutation(() => TrainingWorkAssignment, {
    nullable: true,
    description: 'Leases the oldest pending remote training assignment to a trainer machine, or null when there is none. Also at POST /training/v1/workers/lease',
  })
  async leaseTrainingWork(
    @Arg('workerId', () => String, { description: 'The trainer machine asking for work' }) workerId: string,
    @Ctx() context: GraphQLContext,
  ): Promise<TrainingWorkAssignment | null> {
    requirePlatformAdmin(context);
    const work = await this.services.remote.lease(workerId);
    return work ? toTrainingWorkAssignment(work) : null;
  }

  @Mutation(() => String, {
    description: 'Keeps a lease alive; the answer LEASED = go on, anything else (CANCELLED, LOST, …) = stop. Also at POST /training/v1/workers/jobs/{job_id}/heartbeat',
  })
  heartbeatTrainingWork(
    @Arg('jobId', () => ID, { description: 'The leased job' }) jobId: string,
    @Arg('workerId', () => String, { description: 'The trainer machine holding the lease' }) workerId: string,
    @Ctx() context: GraphQLContext,
  ): Promise<string> {
    requirePlatformAdmin(context);
    return this.services.remote.heartbeat(jobId, workerId);
  }

  @Mutation(() => Boolean, {
    description: "Records one optimizer step's metrics as the job's gradient_step event. Also at POST /training/v1/workers/jobs/{job_id}/steps",
  })
  async reportTrainingStep(
    @Arg('jobId', () => ID, { description: 'The leased job' }) jobId: string,
    @Arg('input', () => TrainingStepReportInput.argType(), { description: 'The worker and the metrics of the step' }) input: unknown,
    @Ctx() context: GraphQLContext,
  ): Promise<boolean> {
    requirePlatformAdmin(context);
    await TrainingStepReportInput.handle(input, AT_BODY, (wire) => this.services.remote.step(jobId, wire));
    return true;
  }

  @Mutation(() => Boolean, {
    description: 'Uploads the trained adapter and ends the assignment. Also at POST /training/v1/workers/jobs/{job_id}/complete (files base64 by name)',
  })
  async completeTrainingWork(
    @Arg('jobId', () => ID, { description: 'The leased job' }) jobId: string,
    @Arg('input', () => TrainingWorkResultInput.argType(), { description: 'The worker, the step reached and the adapter files' }) input: unknown,
    @Ctx() context: GraphQLContext,
  ): Promise<boolean> {
    requirePlatformAdmin(context);
    await TrainingWorkResultInput.handle(input, AT_BODY, (wire) => this.services.remote.complete(jobId, wire));
    return true;
  }

  @Mutation(() => Boolean, {
    description: "Fails the assignment; the message becomes the job's error message. Also at POST /training/v1/workers/jobs/{job_id}/fail",
  })
  async failTrainingWork(
    @Arg('jobId', () => ID, { description: 'The leased job' }) jobId: string,
    @Arg('workerId', () => String, { description: 'The trainer machine holding the lease' }) workerId: string,
    @Arg('errorMessage', () => String, { description: 'Why training failed' }) errorMessage: string,
    @Ctx() context: GraphQLContext,
  ): Promise<boolean> {
    requirePlatformAdmin(context);
    await this.services.remote.fail(jobId, workerId, errorMessage);
    return true;
  }
}
