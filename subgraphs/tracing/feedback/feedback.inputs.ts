import { typedInput } from '../../../platform/graphql/typed-input.js';
import { QUERY_PATH } from '../query/query.inputs.js';
import { ReadArguments } from '../query/read-arguments.js';
import { FeedbackAggregateQuery, FeedbackCreateBody, FeedbackSortBySchema } from './feedback.schemas.js';

/** The GraphQL inputs of the feedback operations, generated from the REST request schemas (one contract). */
export const FeedbackCreateInput = typedInput(FeedbackCreateBody);
export const FeedbackSortInput = typedInput(FeedbackSortBySchema.items);
export const FeedbackAggregateInput = typedInput(FeedbackAggregateQuery);

/** The arguments of Project.feedback and their places in the body of /feedback/query. */
export const FEEDBACK_ARGUMENTS = new ReadArguments([
  { arg: 'query', wire: ['body', 'query'], path: QUERY_PATH },
  { arg: 'sortBy', wire: ['body', 'sort_by'] },
]);
