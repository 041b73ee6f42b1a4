import { Arg, Ctx, FieldResolver, Int, Resolver, Root } from 'type-graphql';
import { requireTeamMember } from '../../../platform/auth/authorize.js';
import { pagingDescriptions, type Connection } from '../../../platform/graphql/connection.js';
import { defineProjectRef } from '../../../platform/graphql/entity-refs.js';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import { TrainingJobConnection, TrainingJobStatus, toTrainingJob, type TrainingJob } from '../job/job.type.js';
import { mapConnection } from '../map-connection.js';
import { TrainingModelConnection, toTrainingModel, type TrainingModel } from '../model/model.type.js';
import type { TrainingServices } from '../services.js';
import { PAGES } from '../training-service.js';

export const Project = defineProjectRef();
export type Project = InstanceType<typeof Project>;

const MODEL_PAGES = pagingDescriptions(PAGES.models, 'trainable model');
const JOB_PAGES = pagingDescriptions(PAGES.jobs, 'training job');

@Resolver(() => Project)
export class TrainingProjectResolver {
  constructor(private readonly services: TrainingServices) {}

  @FieldResolver(() => Int, { description: 'Number of trainable models in the project' })
  trainingModelCount(@Root() project: Project, @Ctx() context: GraphQLContext): Promise<number> {
    requireTeamMember(context, project.entity);
    return this.services.store.countModels(project.entity, project.name);
  }

  @FieldResolver(() => Int, { description: "Number of training jobs (RL and SFT, any status) of the project's models" })
  trainingJobCount(@Root() project: Project, @Ctx() context: GraphQLContext): Promise<number> {
    requireTeamMember(context, project.entity);
    return this.services.store.countJobs(project.entity, project.name);
  }

  @FieldResolver(() => TrainingModelConnection, { description: "The project's trainable models, newest first" })
  async trainingModels(
    @Root() project: Project,
    @Arg('first', () => Int, { nullable: true, description: MODEL_PAGES.first }) first: number | null,
    @Arg('after', () => String, { nullable: true, description: MODEL_PAGES.after }) after: string | null,
    @Ctx() context: GraphQLContext,
  ): Promise<Connection<TrainingModel>> {
    requireTeamMember(context, project.entity);
    return mapConnection(await this.services.training.projectModels(project, { first, after }), toTrainingModel);
  }

  @FieldResolver(() => TrainingJobConnection, { description: "The training jobs of the project's models, newest first" })
  async trainingJobs(
    @Root() project: Project,
    @Arg('first', () => Int, { nullable: true, description: JOB_PAGES.first }) first: number | null,
    @Arg('after', () => String, { nullable: true, description: JOB_PAGES.after }) after: string | null,
    @Arg('status', () => TrainingJobStatus, { nullable: true, description: 'Only the jobs in this status' }) status: TrainingJobStatus | null,
    @Ctx() context: GraphQLContext,
  ): Promise<Connection<TrainingJob>> {
    requireTeamMember(context, project.entity);
    return mapConnection(await this.services.training.projectJobs(project, { first, after, status }), toTrainingJob);
  }
}
