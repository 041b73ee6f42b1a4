import { Directive, Field, ID, Int, ObjectType } from 'type-graphql';
import { ENTITY_DESCRIPTIONS } from '../../../platform/graphql/entity-refs.js';
import { JSONScalar } from '../../../platform/graphql/scalars.js';

/**
 * Types of what the traces list shows for each call besides its columns: feedback in brief and who ran it. Built
 * from one batched read per page (call-feedback-summary.ts), never per row.
 */
@ObjectType({ description: 'How many reactions of one emoji a call has' })
export class ReactionCount {
  @Field(() => String, { description: 'The emoji' }) emoji!: string;
  @Field(() => Int, { description: 'How many reactions of it' }) count!: number;
}

@ObjectType({ description: "A scorer's latest result on a call" })
export class CallScore {
  @Field(() => String, { description: 'The scorer (from the feedback type `wandb.runnable.<scorer>`)' }) scorer!: string;
  @Field(() => JSONScalar, { nullable: true, description: "The scorer's output (a number, a boolean or an object of them)" }) value!: unknown;
}

@ObjectType({ description: 'Feedback on a call in brief: reactions by emoji, how many notes, and the latest score of each scorer' })
export class CallFeedbackSummary {
  @Field(() => [ReactionCount], { description: 'Reactions by emoji, most frequent first' }) reactions!: ReactionCount[];
  @Field(() => Int, { description: 'How many notes' }) notes!: number;
  @Field(() => [CallScore], { description: 'The latest result of each scorer, by scorer name' }) scores!: CallScore[];
}

/**
 * identity's User entity, as this subgraph returns it: just the key, which the gateway completes from identity
 * (username and the rest). Never read from identity's tables here.
 */
@ObjectType('User')
@Directive('@key(fields: "id")')
export class CallUser {
  @Field(() => ID, { description: ENTITY_DESCRIPTIONS.userId }) id!: string;
}
