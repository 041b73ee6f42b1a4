import { Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import { JSONObjectScalar } from '../../../platform/graphql/scalars.js';
import type { WebhookRow } from '../store.js';

@ObjectType('Webhook', { description: 'An endpoint automations POST to, with optional access token and signing secret' })
export class Webhook {
  @Field(() => ID) id!: string;
  @Field(() => String) team!: string;
  @Field(() => String) name!: string;
  @Field(() => String) endpointUrl!: string;
  @Field(() => Boolean, { description: 'Disabled after the receiver answered 410 Gone (enableWebhook re-enables)' }) disabled!: boolean;
  @Field(() => String, { nullable: true }) disabledReason!: string | null;
  @Field(() => Date) createdAt!: Date;
  accessTokenSecretId!: string | null;
  signingSecretId!: string | null;
}

export function toWebhook(row: WebhookRow): Webhook {
  return Object.assign(new Webhook(), {
    id: row.id,
    team: row.team,
    name: row.name,
    endpointUrl: row.endpoint_url,
    disabled: row.disabled_at !== null,
    disabledReason: row.disabled_reason,
    createdAt: row.created_at,
    accessTokenSecretId: row.access_token_secret_id,
    signingSecretId: row.signing_secret_id,
  });
}

@InputType('CreateWebhookInput')
export class CreateWebhookInput {
  @Field(() => String) team!: string;
  @Field(() => String) name!: string;
  @Field(() => String) endpointUrl!: string;
  @Field(() => String, { nullable: true, description: 'Name of a team secret sent as `Authorization: Bearer`' }) accessTokenSecret?: string | null;
  @Field(() => String, { nullable: true, description: 'Name of a team secret used for X-Service-Signature' }) signingSecret?: string | null;
}

@ObjectType('WebhookTestResult', { description: 'What the receiver answered to a test POST (nothing is stored)' })
export class WebhookTestResult {
  @Field(() => Boolean) ok!: boolean;
  @Field(() => Int, { nullable: true }) status!: number | null;
  @Field(() => JSONObjectScalar) headers!: Record<string, string>;
  @Field(() => String, { nullable: true, description: 'Start of the response body, secrets redacted' }) body!: string | null;
  @Field(() => String, { nullable: true }) error!: string | null;
  @Field(() => Int) durationMs!: number;
}
