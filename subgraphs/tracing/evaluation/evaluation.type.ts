import { Field, Float, Int, ObjectType, registerEnumType } from 'type-graphql';
import { connectionTypes, type Connection } from '../../../platform/graphql/connection.js';
import { JSONScalar } from '../../../platform/graphql/scalars.js';
import type { ComparedExample, ComparedMetric, EvaluationComparisonRecord, EvaluationRunRecord, RunsComparisonRecord, ScorerMetricSummary } from './evaluation.service.js';

export const EvaluationRunStatus = { RUNNING: 'running', SUCCESS: 'success', ERROR: 'error' } as const;
registerEnumType(EvaluationRunStatus, {
  name: 'EvaluationRunStatus',
  description: 'Where an evaluation run is',
  valuesConfig: { RUNNING: { description: 'Started, not finished yet' }, SUCCESS: { description: 'Finished' }, ERROR: { description: 'Ended with an exception' } },
});

export const EvaluationRunSource = { WEAVE_SDK: 'weave_sdk', EVALUATION_API: 'evaluation_api' } as const;
registerEnumType(EvaluationRunSource, {
  name: 'EvaluationRunSource',
  description: 'How an evaluation run was recorded',
  valuesConfig: {
    WEAVE_SDK: { description: "A Weave SDK's `Evaluation.evaluate` call (its examples are `Evaluation.predictAndScore` calls)" },
    EVALUATION_API: { description: 'The v2 evaluation API (createEvaluationRun, createPrediction, createScore)' },
  },
});

export const ScoreMetricKind = { NUMBER: 'number', BOOLEAN: 'boolean' } as const;
registerEnumType(ScoreMetricKind, {
  name: 'ScoreMetricKind',
  description: 'What a scorer metric holds',
  valuesConfig: { NUMBER: { description: 'Numbers' }, BOOLEAN: { description: 'True or false, counted as 1 or 0 (so a mean is the fraction true)' } },
});

@ObjectType({ description: "One scorer metric over an evaluation run's examples", simpleResolvers: true })
export class EvaluationScoreSummary {
  @Field(() => String, { description: 'The scorer (its op or object name)' }) scorer!: string;
  @Field(() => String, {
    nullable: true,
    description: "The metric within the scorer's output: the dotted path of a number or boolean in it (`correct`); null when the scorer answered a bare number or boolean",
  })
  metric!: string | null;
  @Field(() => ScoreMetricKind, { description: 'Numbers, or booleans counted as 1/0' }) kind!: string;
  @Field(() => Float, { description: 'The mean over the examples that have it (for booleans, the fraction true)' }) mean!: number;
  @Field(() => Int, { description: 'How many examples have it' }) count!: number;
}

@ObjectType({ description: 'One evaluation of a model over a dataset, recorded by a Weave SDK or by the v2 evaluation API', simpleResolvers: true })
export class EvaluationRun {
  @Field(() => String, { description: "The run's id: the id of its `Evaluation.evaluate` (or evaluation API run) call" }) id!: string;
  @Field(() => String, { nullable: true, description: 'The trace the run and its examples belong to' }) traceId!: string | null;
  @Field(() => EvaluationRunSource, { description: 'How it was recorded' }) source!: string;
  @Field(() => String, { description: 'The evaluation: its object name' }) evaluation!: string;
  @Field(() => String, { nullable: true, description: 'The evaluation object ref, when it is one' }) evaluationRef!: string | null;
  @Field(() => String, { description: 'The model evaluated: its op or object name' }) model!: string;
  @Field(() => String, { nullable: true, description: 'The model ref, when it is one' }) modelRef!: string | null;
  @Field(() => String, { nullable: true, description: "The run call's display name, when the client set one" }) displayName!: string | null;
  @Field(() => Date, { nullable: true, description: 'When it started' }) startedAt!: Date | null;
  @Field(() => Date, { nullable: true, description: 'When it finished; null while running' }) endedAt!: Date | null;
  @Field(() => EvaluationRunStatus, { description: 'Running, finished or failed' }) status!: string;
  @Field(() => String, { nullable: true, description: 'The exception it ended with, if any' }) exception!: string | null;
  @Field(() => Int, { description: 'How many examples (dataset rows × trials, or predictions) it has recorded' }) exampleCount!: number;
  @Field(() => [EvaluationScoreSummary], { description: 'Per scorer and metric: the mean and how many examples have it, by scorer then metric' })
  scores!: EvaluationScoreSummary[];
}

export function toEvaluationRun(record: EvaluationRunRecord): EvaluationRun {
  return { ...record, scores: record.scores.map((score: ScorerMetricSummary) => ({ ...score })) };
}

/** A page of a project's evaluation runs (Relay connection). */
export const EvaluationRunConnection = connectionTypes(EvaluationRun, 'EvaluationRun', 'evaluation run');
export type EvaluationRunConnection = Connection<EvaluationRun>;

@ObjectType({ description: 'One scorer metric of one example in both runs of a comparison', simpleResolvers: true })
export class EvaluationComparisonScore {
  @Field(() => String, { description: 'The scorer' }) scorer!: string;
  @Field(() => String, { nullable: true, description: "The metric within the scorer's output (null: the bare value)" }) metric!: string | null;
  @Field(() => ScoreMetricKind, { description: 'Numbers, or booleans counted as 1/0' }) kind!: string;
  @Field(() => Float, { nullable: true, description: 'Its value in run A (booleans as 1/0); null when run A has none' }) valueA!: number | null;
  @Field(() => Float, { nullable: true, description: 'Its value in run B; null when run B has none' }) valueB!: number | null;
}

@ObjectType({ description: 'One example (dataset row, or the inputs of a prediction) as the two runs of a comparison scored it', simpleResolvers: true })
export class EvaluationComparisonExample {
  @Field(() => String, { description: 'What identifies the example in both runs: the dataset row digest, else the digest of its inputs' }) key!: string;
  @Field(() => JSONScalar, { nullable: true, description: 'The example: the dataset row, or the inputs the model was given' }) inputs!: unknown;
  @Field(() => JSONScalar, { nullable: true, description: "Run A's model output for it" }) outputA!: unknown;
  @Field(() => JSONScalar, { nullable: true, description: "Run B's model output for it" }) outputB!: unknown;
  @Field(() => Boolean, { description: 'Run A has this example' }) inA!: boolean;
  @Field(() => Boolean, { description: 'Run B has this example' }) inB!: boolean;
  @Field(() => [EvaluationComparisonScore], { description: 'Per scorer and metric, the two values' }) scores!: EvaluationComparisonScore[];
}

@ObjectType({ description: 'Two evaluation runs side by side: their summaries and their examples, joined on the example', simpleResolvers: true })
export class EvaluationComparison {
  @Field(() => EvaluationRun, { description: 'The first run' }) runA!: EvaluationRun;
  @Field(() => EvaluationRun, { description: 'The second run' }) runB!: EvaluationRun;
  @Field(() => [EvaluationComparisonExample], {
    description: "The examples of either run, in run A's order then run B's others (at most 2,000; see truncated)",
  })
  examples!: EvaluationComparisonExample[];
  @Field(() => Boolean, { description: 'More examples exist than were compared' }) truncated!: boolean;
}

export function toEvaluationComparison(record: EvaluationComparisonRecord): EvaluationComparison {
  return {
    runA: toEvaluationRun(record.runA),
    runB: toEvaluationRun(record.runB),
    truncated: record.truncated,
    examples: record.examples.map((example: ComparedExample) => ({
      key: example.key,
      inputs: example.inputs,
      outputA: example.outputA,
      outputB: example.outputB,
      inA: example.inA,
      inB: example.inB,
      scores: example.metrics.map((metric: ComparedMetric) => ({ ...metric })),
    })),
  };
}

@ObjectType({ description: "One scorer metric's value for one example in one run", simpleResolvers: true })
export class EvaluationMetricValue {
  @Field(() => String, { description: 'The scorer' }) scorer!: string;
  @Field(() => String, { nullable: true, description: "The metric within the scorer's output (null: the bare value)" }) metric!: string | null;
  @Field(() => ScoreMetricKind, { description: 'Numbers, or booleans counted as 1/0' }) kind!: string;
  @Field(() => Float, { description: 'The value (booleans as 1/0)' }) value!: number;
}

@ObjectType({ description: "One run's answer to one example of a comparison: the call that produced it, the model output and the scores", simpleResolvers: true })
export class EvaluationExampleResult {
  @Field(() => String, {
    description: "The call that produced it (the SDK's `Evaluation.predictAndScore` call, or the evaluation API's prediction); it opens at /ui/calls/<entity>/<project>/<id>",
  })
  callId!: string;
  @Field(() => JSONScalar, { nullable: true, description: "The model's output for the example" }) output!: unknown;
  @Field(() => [EvaluationMetricValue], { description: 'Per scorer and metric, its value, by scorer then metric' }) values!: EvaluationMetricValue[];
}

@ObjectType({ description: 'One example (dataset row, or the inputs of a prediction) as each run of a comparison answered and scored it', simpleResolvers: true })
export class EvaluationRunsExample {
  @Field(() => String, { description: 'What identifies the example in every run: the dataset row digest, else the digest of its inputs' }) key!: string;
  @Field(() => JSONScalar, { nullable: true, description: 'The example: the dataset row, or the inputs the model was given' }) inputs!: unknown;
  @Field(() => [EvaluationExampleResult], {
    nullable: 'items',
    description: 'One result per compared run, in the order the runs were named; null where that run has no such example',
  })
  results!: (EvaluationExampleResult | null)[];
}

@ObjectType({ description: 'Two to four evaluation runs side by side: their summaries and their examples, joined on the example', simpleResolvers: true })
export class EvaluationRunsComparison {
  @Field(() => [EvaluationRun], { description: 'The runs, in the order they were named (the first is the baseline)' }) runs!: EvaluationRun[];
  @Field(() => [EvaluationRunsExample], {
    description: "The examples of any run, in the first run's order then the others' (at most 2,000; see truncated)",
  })
  examples!: EvaluationRunsExample[];
  @Field(() => Boolean, { description: 'More examples exist than were compared' }) truncated!: boolean;
}

export function toEvaluationRunsComparison(record: RunsComparisonRecord): EvaluationRunsComparison {
  return {
    runs: record.runs.map(toEvaluationRun),
    truncated: record.truncated,
    examples: record.examples.map((example) => ({
      key: example.key,
      inputs: example.inputs,
      results: example.results.map((result) => (result ? { callId: result.callId, output: result.output, values: result.values.map((value) => ({ ...value })) } : null)),
    })),
  };
}
