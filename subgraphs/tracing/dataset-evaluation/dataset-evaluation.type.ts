import { Field, Int, ObjectType } from 'type-graphql';
import type { StartedEvaluation } from './dataset-evaluation.service.js';

@ObjectType({ description: 'One evaluation run evaluateDataset started: one model over the split', simpleResolvers: true })
export class StartedEvaluationRun {
  @Field(() => String, { description: 'The evaluation run id (Project.evaluationRunSummary(id), evaluationRunsComparison(runs))' }) id!: string;
  @Field(() => String, { description: 'The model it asks, as named in the input' }) model!: string;
}

@ObjectType({ description: 'An evaluation of a dataset version that the platform runs: its runs, started and still running', simpleResolvers: true })
export class DatasetEvaluation {
  @Field(() => String, { description: 'The Evaluation object published for it (dataset, split, scorers): weave:///{entity}/{project}/object/{name}:{digest}' })
  evaluationRef!: string;
  @Field(() => String, { description: 'The Dataset version evaluated' }) datasetRef!: string;
  @Field(() => String, { description: 'Its version, v<N>' }) datasetVersion!: string;
  @Field(() => Int, { description: 'The first row evaluated (0 = the first row of the version)' }) rowStart!: number;
  @Field(() => Int, { description: 'The row after the last one evaluated' }) rowEnd!: number;
  @Field(() => [StartedEvaluationRun], {
    description: 'One run per model, in the order the models were named; each is RUNNING until every row is answered and scored (then SUCCESS), or ERROR when interrupted',
  })
  runs!: StartedEvaluationRun[];
}

export function toDatasetEvaluation(started: StartedEvaluation): DatasetEvaluation {
  return { ...started, runs: started.runs.map((run) => ({ ...run })) };
}
