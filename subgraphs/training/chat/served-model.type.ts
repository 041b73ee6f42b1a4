import { Field, Int, ObjectType } from 'type-graphql';

@ObjectType('TrainingServedModel', { description: 'What training chat answers a model name with: a base model, with or without a checkpoint adapter' })
export class TrainingServedModel {
  @Field(() => String, { description: 'The model name as asked' }) model!: string;
  @Field(() => String, { description: 'The base model that generates' }) baseModel!: string;
  @Field(() => Int, { nullable: true, description: "The step of the checkpoint whose adapter is applied; null when the base model answers alone (step0, or latest before any checkpoint)" })
  checkpointStep!: number | null;
}
