import { Arg, Ctx, ID, Int, Mutation, Resolver } from 'type-graphql';
import { requirePlatformAdmin } from '../../../platform/auth/authorize.js';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import { JSONObjectScalar } from '../../../platform/graphql/scalars.js';
import type { TrainingServices } from '../services.js';

/** The remote trainer protocol (docs/training.md). Trainer machines authenticate with a platform operator's key. */
@Resolver()
export class RemoteWorkerResolver {
  constructor(private readonly services: TrainingServices) {}

  @Mutation(() => JSONObjectScalar, { nullable: true, description: 'Leases the oldest pending remote training assignment, or null' })
  leaseTrainingWork(@Arg('workerId', () => String) workerId: string, @Ctx() context: GraphQLContext): Promise<Record<string, unknown> | null> {
    requirePlatformAdmin(context);
    return this.services.remote.lease(workerId);
  }

  @Mutation(() => String, { description: 'Keeps a lease alive; LEASED = go on, anything else = stop' })
  heartbeatTrainingWork(
    @Arg('jobId', () => ID) jobId: string,
    @Arg('workerId', () => String) workerId: string,
    @Ctx() context: GraphQLContext,
  ): Promise<string> {
    requirePlatformAdmin(context);
    return this.services.remote.heartbeat(jobId, workerId);
  }

  @Mutation(() => Boolean, { description: 'Records one optimizer step (numeric metrics) as a gradient_step event' })
  async reportTrainingStep(
    @Arg('jobId', () => ID) jobId: string,
    @Arg('workerId', () => String) workerId: string,
    @Arg('metrics', () => JSONObjectScalar) metrics: Record<string, unknown>,
    @Ctx() context: GraphQLContext,
  ): Promise<boolean> {
    requirePlatformAdmin(context);
    await this.services.remote.step(jobId, workerId, metrics);
    return true;
  }

  @Mutation(() => Boolean, { description: 'Uploads the trained adapter (files base64 by name) and ends the assignment' })
  async completeTrainingWork(
    @Arg('jobId', () => ID) jobId: string,
    @Arg('workerId', () => String) workerId: string,
    @Arg('step', () => Int) step: number,
    @Arg('files', () => JSONObjectScalar) files: Record<string, string>,
    @Ctx() context: GraphQLContext,
  ): Promise<boolean> {
    requirePlatformAdmin(context);
    await this.services.remote.complete(jobId, workerId, { step, files });
    return true;
  }

  @Mutation(() => Boolean, { description: 'Fails the assignment; the message becomes the job\'s error_message' })
  async failTrainingWork(
    @Arg('jobId', () => ID) jobId: string,
    @Arg('workerId', () => String) workerId: string,
    @Arg('errorMessage', () => String) errorMessage: string,
    @Ctx() context: GraphQLContext,
  ): Promise<boolean> {
    requirePlatformAdmin(context);
    await this.services.remote.fail(jobId, workerId, errorMessage);
    return true;
  }
}
