import { Arg, Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import { requireTeamMember } from '../../../platform/auth/authorize.js';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import { Call } from '../call/call.type.js';
import { Project } from '../project/project.resolver.js';
import type { TracingServices } from '../services.js';
import { tokensOfSummary } from './token-usage.js';
import { TokenUsage, toTokenUsage } from './token-usage.type.js';

const COST_NOTE = 'its `cost` comes from the inference price table';

/** A call's tokens, from its own summary. A Call is only reached through a Project field, which checked membership. */
@Resolver(() => Call)
export class CallTokenUsageResolver {
  @FieldResolver(() => TokenUsage, {
    description:
      `Tokens the call's summary.usage records per model (a parent's include its children's, as Weave rolls them up; none ` +
      `when the read's columns leave out summary); ${COST_NOTE}`,
  })
  usage(@Root() call: Call): TokenUsage {
    return toTokenUsage(tokensOfSummary(call.summary));
  }
}

/** Token totals of the project's traces and time windows, summed in PostgreSQL. */
@Resolver(() => Project)
export class ProjectTokenUsageResolver {
  constructor(private readonly services: TracingServices) {}

  @FieldResolver(() => TokenUsage, { description: `Tokens of one trace, each completion counted once; ${COST_NOTE}` })
  traceUsage(
    @Root() project: Project,
    @Arg('traceId', () => String, { description: 'The trace id' }) traceId: string,
    @Ctx() context: GraphQLContext,
  ): Promise<TokenUsage> {
    requireTeamMember(context, project.entity);
    return this.services.tokenUsage.ofTrace(`${project.entity}/${project.name}`, traceId);
  }

  @FieldResolver(() => TokenUsage, { description: `Tokens of the calls started in [from, to), each completion counted once; ${COST_NOTE}` })
  tokenUsage(
    @Root() project: Project,
    @Arg('from', () => Date, { nullable: true, description: 'Inclusive lower bound on the start time (default: no bound)' }) from: Date | null,
    @Arg('to', () => Date, { nullable: true, description: 'Exclusive upper bound on the start time (default: no bound)' }) to: Date | null,
    @Ctx() context: GraphQLContext,
  ): Promise<TokenUsage> {
    requireTeamMember(context, project.entity);
    return this.services.tokenUsage.ofWindow(`${project.entity}/${project.name}`, from, to);
  }
}
