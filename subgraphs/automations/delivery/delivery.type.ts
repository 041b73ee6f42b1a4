import { Field, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import { DELIVERY_STATUSES } from '../db/database.js';
import type { AttemptRow, DeliveryRow } from '../store.js';

export const DeliveryStatusEnum = Object.fromEntries(DELIVERY_STATUSES.map((value) => [value, value])) as Record<string, string>;
registerEnumType(DeliveryStatusEnum, { name: 'DeliveryStatus' });

@ObjectType('DeliveryAttempt')
export class DeliveryAttempt {
  @Field(() => Int) attempt!: number;
  @Field(() => Date) startedAt!: Date;
  @Field(() => Date) finishedAt!: Date;
  @Field(() => Int, { nullable: true }) responseStatus!: number | null;
  @Field(() => String, { nullable: true, description: 'Truncated, secrets redacted' }) responseBody!: string | null;
  @Field(() => String, { nullable: true }) error!: string | null;
}

export function toAttempt(row: AttemptRow): DeliveryAttempt {
  return Object.assign(new DeliveryAttempt(), {
    attempt: row.attempt,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    responseStatus: row.response_status,
    responseBody: row.response_body,
    error: row.error,
  });
}

@ObjectType('Delivery', { description: 'One event delivered (or being delivered) by one automation; the id is sent as X-Service-Delivery' })
export class Delivery {
  @Field(() => ID) id!: string;
  @Field(() => ID) automationId!: string;
  @Field(() => ID) webhookId!: string;
  @Field(() => String) team!: string;
  @Field(() => String) eventId!: string;
  @Field(() => String) eventType!: string;
  @Field(() => DeliveryStatusEnum) status!: string;
  @Field(() => Int, { description: 'Attempts made so far' }) attemptCount!: number;
  @Field(() => Date) nextAttemptAt!: Date;
  @Field(() => Int, { nullable: true }) lastStatus!: number | null;
  @Field(() => String, { nullable: true }) lastError!: string | null;
  @Field(() => Date) createdAt!: Date;
  @Field(() => Date, { nullable: true }) finishedAt!: Date | null;
  row!: DeliveryRow;
}

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
