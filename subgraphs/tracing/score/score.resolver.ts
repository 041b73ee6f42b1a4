import { Arg, Ctx, Mutation, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import { JSONObjectScalar } from '../../../platform/graphql/scalars.js';
import type { TracingServices } from '../services.js';
import { projectWriterOf } from '../writer.js';
import { Score } from './score.type.js';

/** The v2 evaluation API: the project always comes from the path (entity, project arguments). */
@Resolver(() => Score)
export class ScoreResolver {
  constructor(private readonly services: TracingServices) {}

  @Mutation(() => String, { description: 'POST /v2/{entity}/{project}/scores: ScoreCreateBody → the score id' })
  async createScore(
    @Arg('entity', () => String) entity: string,
    @Arg('project', () => String) project: string,
    @Arg('body', () => JSONObjectScalar) body: Record<string, unknown>,
    @Ctx() context: GraphQLContext,
  ): Promise<string> {
    const { writer, projectId } = projectWriterOf(context, entity, project);
    return this.services.scores.createScore(writer, projectId, body);
  }

  @Mutation(() => String, { description: 'POST /v2/{entity}/{project}/predictions → the prediction id' })
  async createPrediction(
    @Arg('entity', () => String) entity: string,
    @Arg('project', () => String) project: string,
    @Arg('body', () => JSONObjectScalar) body: Record<string, unknown>,
    @Ctx() context: GraphQLContext,
  ): Promise<string> {
    const { writer, projectId } = projectWriterOf(context, entity, project);
    return this.services.scores.createPrediction(writer, projectId, body);
  }

  @Mutation(() => String, { description: 'POST /v2/{entity}/{project}/evaluation_runs → the evaluation run id' })
  async createEvaluationRun(
    @Arg('entity', () => String) entity: string,
    @Arg('project', () => String) project: string,
    @Arg('body', () => JSONObjectScalar) body: Record<string, unknown>,
    @Ctx() context: GraphQLContext,
  ): Promise<string> {
    const { writer, projectId } = projectWriterOf(context, entity, project);
    return this.services.scores.createEvaluationRun(writer, projectId, body);
  }

  @Mutation(() => Boolean, { description: 'POST /v2/{entity}/{project}/evaluation_runs/{id}/finish' })
  async finishEvaluationRun(
    @Arg('entity', () => String) entity: string,
    @Arg('project', () => String) project: string,
    @Arg('id', () => String) id: string,
    @Arg('body', () => JSONObjectScalar, { nullable: true }) body: Record<string, unknown> | null,
    @Ctx() context: GraphQLContext,
  ): Promise<boolean> {
    const { writer, projectId } = projectWriterOf(context, entity, project);
    await this.services.scores.finishEvaluationRun(writer, projectId, id, body ?? {});
    return true;
  }
}
