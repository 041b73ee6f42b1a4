import { Field, ID, ObjectType } from 'type-graphql';

@ObjectType('ApiKey', { description: 'An API key; the secret itself is shown only once, at creation' })
export class ApiKey {
  @Field(() => ID) id!: string;
  @Field(() => String) name!: string;
  @Field(() => String, { description: 'First characters of the key, to recognise it' }) prefix!: string;
  @Field(() => Date) createdAt!: Date;
  @Field(() => Date, { nullable: true }) lastUsedAt!: Date | null;
  @Field(() => Date, { nullable: true }) revokedAt!: Date | null;
}

@ObjectType('CreatedApiKey')
export class CreatedApiKey {
  @Field(() => String, { description: 'The key. Store it now: it cannot be read again.' }) key!: string;
  @Field(() => ApiKey) apiKey!: ApiKey;
}

export function toApiKey(row: {
  id: string;
  name: string;
  displayPrefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}): ApiKey {
  return Object.assign(new ApiKey(), {
    id: row.id,
    name: row.name,
    prefix: row.displayPrefix,
    createdAt: row.createdAt,
    lastUsedAt: row.lastUsedAt,
    revokedAt: row.revokedAt,
  });
}
