import { Arg, Ctx, Mutation, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import { JSONObjectScalar } from '../../../platform/graphql/scalars.js';
import type { TracingServices } from '../services.js';
import { writerOf } from '../writer.js';
import { Feedback, toFeedback } from './feedback.type.js';

@Resolver(() => Feedback)
export class FeedbackResolver {
  constructor(private readonly services: TracingServices) {}

  @Mutation(() => Feedback, { description: 'POST /feedback/create' })
  async createFeedback(@Arg('body', () => JSONObjectScalar) body: Record<string, unknown>, @Ctx() context: GraphQLContext): Promise<Feedback> {
    return toFeedback(await this.services.feedback.create(writerOf(context), body));
  }
}
