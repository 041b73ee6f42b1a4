import { Arg, Ctx, Mutation, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import type { TracingServices } from '../services.js';
import { projectWriterOf } from '../writer.js';
import { AT_BODY, EvaluationRunCreateInput, EvaluationRunFinishInput, PredictionCreateInput, ScoreCreateInput } from './score.inputs.js';
import { Score } from './score.type.js';

const ENTITY = { description: 'The entity (team or user) owning the project' };
const PROJECT = { description: 'The project name' };

/** The v2 evaluation API: the project always comes from the path (entity, project arguments). */
@Resolver(() => Score)
export class ScoreResolver {
  constructor(private readonly services: TracingServices) {}

  @Mutation(() => String, {
    description:
      "Records a scorer's output for a prediction (a call of `<Scorer>.score`, in the evaluation run's trace when one is given, and " +
      "feedback on the prediction's call, in one transaction) and answers the score id. Also at POST /traces/v2/{entity}/{project}/scores.",
  })
  async createScore(
    @Arg('entity', () => String, ENTITY) entity: string,
    @Arg('project', () => String, PROJECT) project: string,
    @Arg('input', () => ScoreCreateInput.argType(), { description: 'The score' }) input: unknown,
    @Ctx() context: GraphQLContext,
  ): Promise<string> {
    const { writer, projectId } = projectWriterOf(context, entity, project);
    return ScoreCreateInput.handle(input, AT_BODY, (body) => this.services.scores.createScore(writer, projectId, body));
  }

  @Mutation(() => String, {
    description:
      "Records a prediction (a call of `<Model>.predict`, a child of its evaluation run when given) and answers its id. Also at POST /traces/v2/{entity}/{project}/predictions.",
  })
  async createPrediction(
    @Arg('entity', () => String, ENTITY) entity: string,
    @Arg('project', () => String, PROJECT) project: string,
    @Arg('input', () => PredictionCreateInput.argType(), { description: 'The prediction' }) input: unknown,
    @Ctx() context: GraphQLContext,
  ): Promise<string> {
    const { writer, projectId } = projectWriterOf(context, entity, project);
    return PredictionCreateInput.handle(input, AT_BODY, (body) => this.services.scores.createPrediction(writer, projectId, body));
  }

  @Mutation(() => String, {
    description:
      'Starts an evaluation run (a call of `<Evaluation>.evaluate` that predictions and scores hang under) and answers its id. ' +
      'Also at POST /traces/v2/{entity}/{project}/evaluation_runs.',
  })
  async createEvaluationRun(
    @Arg('entity', () => String, ENTITY) entity: string,
    @Arg('project', () => String, PROJECT) project: string,
    @Arg('input', () => EvaluationRunCreateInput.argType(), { description: 'The evaluation and the model' }) input: unknown,
    @Ctx() context: GraphQLContext,
  ): Promise<string> {
    const { writer, projectId } = projectWriterOf(context, entity, project);
    return EvaluationRunCreateInput.handle(input, AT_BODY, (body) => this.services.scores.createEvaluationRun(writer, projectId, body));
  }

  @Mutation(() => Boolean, {
    description: "Finishes an evaluation run, recording its summary as the run's output. Also at POST /traces/v2/{entity}/{project}/evaluation_runs/{id}/finish.",
  })
  async finishEvaluationRun(
    @Arg('entity', () => String, ENTITY) entity: string,
    @Arg('project', () => String, PROJECT) project: string,
    @Arg('id', () => String, { description: 'The evaluation run' }) id: string,
    @Arg('input', () => EvaluationRunFinishInput.argType(), { nullable: true, description: 'Its summary (none: an empty summary)' }) input: unknown,
    @Ctx() context: GraphQLContext,
  ): Promise<boolean> {
    const { writer, projectId } = projectWriterOf(context, entity, project);
    await EvaluationRunFinishInput.handle(input ?? {}, AT_BODY, (body) => this.services.scores.finishEvaluationRun(writer, projectId, id, body));
    return true;
  }
}
