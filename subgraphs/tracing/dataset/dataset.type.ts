import { Field, Int, ObjectType } from 'type-graphql';

@ObjectType('TraceDatasetVersion', { description: 'A version of a Weave Dataset object, as stored (rows in a table)' })
export class TraceDatasetVersion {
  @Field(() => String, { description: 'The Dataset object name' }) objectId!: string;
  @Field(() => String, { description: "The version's digest" }) digest!: string;
  @Field(() => String, { description: 'v<N>: the version index' }) version!: string;
  @Field(() => String, { description: 'weave:///{entity}/{project}/object/{name}:{digest}, what the Weave SDKs read back with ref(...).get()' }) ref!: string;
  @Field(() => Int, { description: 'How many rows the version holds' }) rowCount!: number;
}
