import { Field, InputType } from 'type-graphql';

@InputType({ description: 'One sort key of Project.feedback (the sort_by of POST /feedback/query)' })
export class FeedbackSortInput {
  @Field(() => String, { description: 'A feedback column (created_at, feedback_type, …) or a dotted path into payload' }) field!: string;
  @Field(() => String, { description: 'asc | desc' }) direction!: string;
}
