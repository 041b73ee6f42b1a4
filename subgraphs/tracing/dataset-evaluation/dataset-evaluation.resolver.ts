import { Arg, Ctx, Mutation, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import type { TracingServices } from '../services.js';
import { projectWriterOf } from '../writer.js';
import { AT_INPUT, DatasetEvaluationInput } from './dataset-evaluation.inputs.js';
import { DatasetEvaluation, toDatasetEvaluation } from './dataset-evaluation.type.js';

/** The platform runs an evaluation of a dataset version against several models (issue #31's evaluate step). */
@Resolver()
export class DatasetEvaluationResolver {
  constructor(private readonly services: TracingServices) {}

  @Mutation(() => DatasetEvaluation, {
    description:
      "Team members of the project: evaluates 2 to 4 models (catalog ids, promoted `{entity}/{project}/{model}:{alias}` names, `wandb-artifact:///` training checkpoints) on rows of a Weave Dataset version " +
      'with built-in checks or LLM judges, asked as the caller at temperature 0. Answers at once with one evaluation run per model; the runs record predictions and scores ' +
      '(the v2 evaluation API) in the background and end SUCCESS (Project.evaluationRunSummary), and evaluationRunsComparison shows them side by side. Bad input: BAD_USER_INPUT at its path, nothing created',
  })
  async evaluateDataset(
    @Arg('entity', () => String, { description: 'Team of the project' }) entity: string,
    @Arg('project', () => String, { description: 'Project name (the dataset\'s; the runs are recorded in it)' }) project: string,
    @Arg('input', () => DatasetEvaluationInput.argType(), { description: 'The dataset version, the split, the models, the scorers and the prompt columns' }) input: unknown,
    @Ctx() context: GraphQLContext,
  ): Promise<DatasetEvaluation> {
    const { writer, projectId } = projectWriterOf(context, entity, project);
    // The runs ask models as this caller (their own rights and limits), never as an identity the platform makes up.
    const caller = { principal: context.principal!, requestId: context.requestId };
    return toDatasetEvaluation(await DatasetEvaluationInput.handle(input, AT_INPUT, (body) => this.services.datasetEvaluations.start(caller, writer, projectId, body)));
  }
}
