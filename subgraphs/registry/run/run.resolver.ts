import { Arg, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import { requirePrincipal } from '../../../platform/auth/authorize.js';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import type { RunState } from '../db/database.js';
import type { RegistryServices } from '../services.js';
import { CreateRunInput, MetricInput, MetricPoint, Run, RunStateEnum, toRun } from './run.type.js';

@Resolver(() => Run)
export class RunResolver {
  constructor(private readonly services: RegistryServices) {}

  @Query(() => Run, { nullable: true, description: 'A run of a team the caller belongs to; null when there is none' })
  async run(@Arg('id', () => ID, { description: 'Id of the run' }) id: string, @Ctx() context: GraphQLContext): Promise<Run | null> {
    const row = await this.services.runs.get(requirePrincipal(context), id);
    return row ? toRun(row) : null;
  }

  @Mutation(() => Run, { description: 'Start a run (state RUNNING) authored by the caller' })
  async createRun(@Arg('input', () => CreateRunInput, { description: 'The run' }) input: CreateRunInput, @Ctx() context: GraphQLContext): Promise<Run> {
    return toRun(await this.services.runs.create(requirePrincipal(context), input));
  }

  @Mutation(() => Run, { description: 'Move a run to another state (finished, failed, killed)' })
  async setRunState(
    @Arg('runId', () => ID, { description: 'Id of the run' }) runId: string,
    @Arg('state', () => RunStateEnum, { description: 'The new state' }) state: RunState,
    @Ctx() context: GraphQLContext,
  ): Promise<Run> {
    return toRun(await this.services.runs.setState(requirePrincipal(context), runId, state));
  }

  @Mutation(() => Run, { description: 'Append metric values to the run\'s history' })
  async logRunMetrics(
    @Arg('runId', () => ID, { description: 'Id of the run' }) runId: string,
    @Arg('metrics', () => [MetricInput], { description: 'The values to append' }) metrics: MetricInput[],
    @Ctx() context: GraphQLContext,
  ): Promise<Run> {
    return toRun(await this.services.runs.logMetrics(requirePrincipal(context), runId, metrics.map((metric) => ({ ...metric }))));
  }

  @FieldResolver(() => [MetricPoint], { description: "A metric's values by step, for charts (a plain list: a chart draws them all)" })
  async metricHistory(@Root() run: Run, @Arg('name', () => String, { description: 'Metric name' }) name: string): Promise<MetricPoint[]> {
    const rows = await this.services.runs.metricHistory(run.id, name);
    return rows.map((row) => Object.assign(new MetricPoint(), { step: row.step, value: row.value, loggedAt: row.logged_at }));
  }
}
