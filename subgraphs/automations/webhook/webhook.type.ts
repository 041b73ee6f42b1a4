import { Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import { JSONObjectScalar } from '../../../platform/graphql/scalars.js';
import type { WebhookRow } from '../store.js';

@ObjectType('Webhook', { description: 'An endpoint automations POST to, with optional access token and signing secret' })
export class Webhook {
  @Field(() => ID, { description: 'Id of the webhook' }) id!: string;
  @Field(() => String, { description: 'Team owning it' }) team!: string;
  @Field(() => String, { description: 'Name, unique in the team' }) name!: string;
  @Field(() => String, { description: 'The URL deliveries are POSTed to' }) endpointUrl!: string;
  @Field(() => Boolean, { description: 'Disabled after the receiver answered 410 Gone (enableWebhook re-enables)' }) disabled!: boolean;
  @Field(() => String, { nullable: true, description: 'Why it was disabled' }) disabledReason!: string | null;
  @Field(() => Date, { description: 'When it was defined' }) createdAt!: Date;
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

@InputType('CreateWebhookInput', { description: 'A webhook to define: where deliveries go and the secrets they carry' })
export class CreateWebhookInput {
  @Field(() => String, { description: 'Team owning it' }) team!: string;
  @Field(() => String, { description: 'Name, unique in the team' }) name!: string;
  @Field(() => String, { description: 'The http(s) URL to POST to' }) endpointUrl!: string;
  @Field(() => String, { nullable: true, description: 'Name of a team secret sent as `Authorization: Bearer`' }) accessTokenSecret?: string | null;
  @Field(() => String, { nullable: true, description: 'Name of a team secret used for X-Service-Signature' }) signingSecret?: string | null;
}

@ObjectType('WebhookTestResult', { description: 'What the receiver answered to a test POST (nothing is stored)' })
export class WebhookTestResult {
  @Field(() => Boolean, { description: 'Whether the receiver answered with a 2xx status' }) ok!: boolean;
  @Field(() => Int, { nullable: true, description: 'The HTTP status answered; null when no answer came' }) status!: number | null;
  @Field(() => JSONObjectScalar, { description: 'The response headers (name → value)' }) headers!: Record<string, string>;
  @Field(() => String, { nullable: true, description: 'Start of the response body, secrets redacted' }) body!: string | null;
  @Field(() => String, { nullable: true, description: 'Why no answer came (timeout, refused connection, blocked address)' }) error!: string | null;
  @Field(() => Int, { description: 'How long the POST took, in milliseconds' }) durationMs!: number;
}
