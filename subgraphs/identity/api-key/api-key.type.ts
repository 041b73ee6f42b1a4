import { Field, ID, ObjectType } from 'type-graphql';

@ObjectType('ApiKey', { description: 'An API key; the secret itself is shown only once, at creation' })
export class ApiKey {
  @Field(() => ID, { description: 'Id of the key (revokeApiKey takes it)' }) id!: string;
  @Field(() => String, { description: 'What the key is for, as its owner named it' }) name!: string;
  @Field(() => String, { description: 'First characters of the key, to recognise it' }) prefix!: string;
  @Field(() => Date, { description: 'When the key was created' }) createdAt!: Date;
  @Field(() => Date, { nullable: true, description: 'When the key was last used (approximately); null if never' }) lastUsedAt!: Date | null;
  @Field(() => Date, { nullable: true, description: 'When the key was revoked; null while it is valid' }) revokedAt!: Date | null;
}

@ObjectType('CreatedApiKey', { description: 'A new API key with its secret, shown this once' })
export class CreatedApiKey {
  @Field(() => String, { description: 'The key. Store it now: it cannot be read again.' }) key!: string;
  @Field(() => ApiKey, { description: 'The stored key (without its secret)' }) apiKey!: ApiKey;
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
