import { Arg, Ctx, Mutation, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import type { TracingServices } from '../services.js';
import { writerOf } from '../writer.js';
import { FeedbackCreateInput } from './feedback.inputs.js';
import { Feedback, toFeedback } from './feedback.type.js';

@Resolver(() => Feedback)
export class FeedbackResolver {
  constructor(private readonly services: TracingServices) {}

  @Mutation(() => Feedback, {
    description: 'Records feedback (a reaction, note, annotation or score) on a call or object of a project. Also at POST /traces/feedback/create.',
  })
  async createFeedback(
    @Arg('input', () => FeedbackCreateInput.argType(), { description: 'The feedback and what it is on' }) input: unknown,
    @Ctx() context: GraphQLContext,
  ): Promise<Feedback> {
    return toFeedback(await FeedbackCreateInput.handle(input, { arg: 'input', wire: ['body'] }, (body) => this.services.feedback.create(writerOf(context), body)));
  }

  @Mutation(() => Boolean, { description: 'Removes one feedback record (a reaction taken back, a note deleted); false when there was none with that id' })
  deleteFeedback(
    @Arg('projectId', () => String, { description: 'The project, as `<entity>/<project>`' }) projectId: string,
    @Arg('id', () => String, { description: 'The feedback id' }) id: string,
    @Ctx() context: GraphQLContext,
  ): Promise<boolean> {
    return this.services.feedback.delete(writerOf(context), projectId, id);
  }
}
