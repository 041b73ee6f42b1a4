import { Field, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import { connectionTypes } from '../../../platform/graphql/connection.js';
import { DELIVERY_STATUSES } from '../db/database.js';
import type { AttemptRow, DeliveryRow } from '../store.js';

export const DeliveryStatusEnum = Object.fromEntries(DELIVERY_STATUSES.map((value) => [value, value])) as Record<string, string>;
registerEnumType(DeliveryStatusEnum, { name: 'DeliveryStatus', description: 'Where a delivery stands: still being tried, delivered, or given up on' });

@ObjectType('DeliveryAttempt', { description: 'One POST of a delivery to its webhook and what the receiver answered' })
export class DeliveryAttempt {
  @Field(() => Int, { description: 'Which attempt this was (1 = the first)' }) attempt!: number;
  @Field(() => Date, { description: 'When the request was sent' }) startedAt!: Date;
  @Field(() => Date, { description: 'When the answer (or the failure) came' }) finishedAt!: Date;
  @Field(() => Int, { description: 'How long the attempt took, in milliseconds' }) durationMs!: number;
  @Field(() => Int, { nullable: true, description: "The receiver's HTTP status; null when no answer came" }) responseStatus!: number | null;
  @Field(() => String, { nullable: true, description: 'Start of the response body (truncated, secrets redacted)' }) responseBody!: string | null;
  @Field(() => String, { nullable: true, description: 'Why the attempt failed without an answer (timeout, refused connection, blocked address)' }) error!: string | null;
}

export function toAttempt(row: AttemptRow): DeliveryAttempt {
  return Object.assign(new DeliveryAttempt(), {
    attempt: row.attempt,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    durationMs: Math.max(0, Math.round(row.finished_at.getTime() - row.started_at.getTime())),
    responseStatus: row.response_status,
    responseBody: row.response_body,
    error: row.error,
  });
}

@ObjectType('Delivery', { description: 'One event delivered (or being delivered) by one automation; the id is sent as X-Service-Delivery' })
export class Delivery {
  @Field(() => ID, { description: 'Id of the delivery (the receiver\'s de-duplication key)' }) id!: string;
  @Field(() => ID, { description: 'The automation that made it' }) automationId!: string;
  @Field(() => ID, { description: 'The webhook it goes to' }) webhookId!: string;
  @Field(() => String, { description: 'Team owning the automation' }) team!: string;
  @Field(() => String, { description: 'The platform event that triggered it' }) eventId!: string;
  @Field(() => String, { description: 'The automation event type that matched' }) eventType!: string;
  @Field(() => DeliveryStatusEnum, { description: 'Where it stands' }) status!: string;
  @Field(() => Int, { description: 'Attempts made so far' }) attemptCount!: number;
  @Field(() => Date, { description: 'When the next attempt is due (pending deliveries)' }) nextAttemptAt!: Date;
  @Field(() => Int, { nullable: true, description: "The last attempt's HTTP status, if it got an answer" }) lastStatus!: number | null;
  @Field(() => String, { nullable: true, description: "The last attempt's error, if it failed" }) lastError!: string | null;
  @Field(() => Date, { description: 'When the event was matched' }) createdAt!: Date;
  @Field(() => Date, { nullable: true, description: 'When it succeeded or was given up on; null while pending' }) finishedAt!: Date | null;
  row!: DeliveryRow;
}

export const DeliveryConnection = connectionTypes(Delivery, 'Delivery', 'delivery');

export function toDelivery(row: DeliveryRow): Delivery {
  return Object.assign(new Delivery(), {
    id: row.id,
    automationId: row.automation_id,
    webhookId: row.webhook_id,
    team: row.team,
    eventId: String(row.event_id),
    eventType: row.event_type,
    status: row.status,
    attemptCount: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    lastStatus: row.last_status,
    lastError: row.last_error,
    createdAt: row.created_at,
    finishedAt: row.finished_at,
    row,
  });
}
