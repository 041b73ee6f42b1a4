import { Arg, Ctx, FieldResolver, Int, Resolver, Root } from 'type-graphql';
import { requireTeamMember } from '../../../platform/auth/authorize.js';
import { offsetAfter, pageSize, pagingDescriptions, toOffsetConnection, type PageLimits } from '../../../platform/graphql/connection.js';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import { Project } from '../project/project.resolver.js';
import type { TracingServices } from '../services.js';
import { FeedbackAggregateInput } from '../feedback/feedback.inputs.js';
import { RATING_HISTOGRAM_BINS } from '../feedback/feedback.service.js';
import { FeedbackRatingHistogram } from '../feedback/feedback.type.js';
import { MAX_COMPARED_RUNS, MIN_COMPARED_RUNS } from './evaluation.service.js';
import {
  EvaluationComparison,
  EvaluationRun,
  EvaluationRunConnection,
  EvaluationRunsComparison,
  toEvaluationComparison,
  toEvaluationRun,
  toEvaluationRunsComparison,
} from './evaluation.type.js';

const RUN_PAGES: PageLimits = { default: 25, max: 200 };
const RUN_PAGING = pagingDescriptions(RUN_PAGES, 'evaluation run');

/** Evaluation runs of a project, for dashboards: whichever way they were recorded, summarized per scorer. */
@Resolver(() => Project)
export class EvaluationProjectResolver {
  constructor(private readonly services: TracingServices) {}

  @FieldResolver(() => EvaluationRunConnection, {
    description:
      "The project's evaluation runs, newest first: the Weave SDKs' `Evaluation.evaluate` calls and the v2 evaluation API's runs, " +
      'each with its model, status, example count and per-scorer means',
  })
  async evaluationRuns(
    @Root() project: Project,
    @Ctx() context: GraphQLContext,
    @Arg('first', () => Int, { nullable: true, description: RUN_PAGING.first }) first: number | null,
    @Arg('after', () => String, { nullable: true, description: RUN_PAGING.after }) after: string | null,
  ): Promise<EvaluationRunConnection> {
    const projectId = projectIdOf(project, context);
    const size = pageSize(first, RUN_PAGES);
    const offset = offsetAfter(after);
    const records = await this.services.evaluations.runs(projectId, size + 1, offset);
    return toOffsetConnection(records, size, offset, { after, toNode: toEvaluationRun });
  }

  @FieldResolver(() => Int, { description: "Number of the project's evaluation runs (the Weave SDKs' and the v2 evaluation API's)" })
  evaluationRunCount(@Root() project: Project, @Ctx() context: GraphQLContext): Promise<number> {
    return this.services.evaluations.count(projectIdOf(project, context));
  }

  @FieldResolver(() => EvaluationRun, { nullable: true, description: 'One evaluation run (SDK or evaluation API) with its summary, by id; null when there is none' })
  async evaluationRunSummary(
    @Root() project: Project,
    @Arg('id', () => String, { description: 'The evaluation run id' }) id: string,
    @Ctx() context: GraphQLContext,
  ): Promise<EvaluationRun | null> {
    const record = await this.services.evaluations.run(projectIdOf(project, context), id);
    return record ? toEvaluationRun(record) : null;
  }

  @FieldResolver(() => EvaluationComparison, {
    description: 'Two evaluation runs side by side, per example (dataset row, or the inputs digest) and per scorer; NOT_FOUND when either is not a run of the project',
  })
  async evaluationComparison(
    @Root() project: Project,
    @Arg('runA', () => String, { description: 'The first evaluation run id' }) runA: string,
    @Arg('runB', () => String, { description: 'The second evaluation run id' }) runB: string,
    @Ctx() context: GraphQLContext,
  ): Promise<EvaluationComparison> {
    return toEvaluationComparison(await this.services.evaluations.compare(projectIdOf(project, context), runA, runB));
  }

  @FieldResolver(() => EvaluationRunsComparison, {
    description:
      `${MIN_COMPARED_RUNS} to ${MAX_COMPARED_RUNS} evaluation runs side by side, per example (dataset row, or the inputs digest) with each run's output, ` +
      'scores and call; BAD_USER_INPUT for fewer or more runs, NOT_FOUND when one is not a run of the project',
  })
  async evaluationRunsComparison(
    @Root() project: Project,
    @Arg('runs', () => [String], { description: `The evaluation run ids, ${MIN_COMPARED_RUNS} to ${MAX_COMPARED_RUNS}, the baseline first` }) runs: string[],
    @Ctx() context: GraphQLContext,
  ): Promise<EvaluationRunsComparison> {
    return toEvaluationRunsComparison(await this.services.evaluations.compareRuns(projectIdOf(project, context), runs));
  }

  // How scorers rate: a 1–5 scale shows five bins, a 0–1 score ten (the evaluation page's rating distribution).
  @FieldResolver(() => FeedbackRatingHistogram, {
    description:
      'The distribution of `_rating_` over the feedback that the window and filters select, binned over the values\' own range: one bin per value when all are ' +
      `whole numbers (at most 21 values), else \`bins\` equal bins from the lowest to the highest. Buckets and groups of the input are ignored`,
  })
  async feedbackRatingHistogram(
    @Root() project: Project,
    @Ctx() context: GraphQLContext,
    @Arg('input', () => FeedbackAggregateInput.argType(), { description: 'The window and the filters (as for feedbackAggregate)' }) input: unknown,
    @Arg('bins', () => Int, {
      nullable: true,
      description: `How many equal bins when the values are not few whole numbers (default ${RATING_HISTOGRAM_BINS.default}, at most ${RATING_HISTOGRAM_BINS.max})`,
    })
    bins: number | null,
  ): Promise<FeedbackRatingHistogram> {
    const projectId = projectIdOf(project, context);
    return FeedbackAggregateInput.handle(input, { arg: 'input', wire: ['body'] }, (request) => this.services.feedback.ratingHistogram(projectId, request, bins));
  }
}

function projectIdOf(project: Project, context: GraphQLContext): string {
  requireTeamMember(context, project.entity);
  return `${project.entity}/${project.name}`;
}
