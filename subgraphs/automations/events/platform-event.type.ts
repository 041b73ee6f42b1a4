import { Field, ID, ObjectType } from 'type-graphql';
import type { PlatformEvent as PlatformEventRecord } from '../../../platform/events/index.js';
import { JSONObjectScalar } from '../../../platform/graphql/scalars.js';

@ObjectType('PlatformEvent', { description: 'A change recorded in the platform event outbox' })
export class PlatformEvent {
  @Field(() => ID) id!: string;
  @Field(() => String, { description: 'Resume position: pass it as `after` to continue after this event' }) cursor!: string;
  @Field(() => String) type!: string;
  @Field(() => String) entity!: string;
  @Field(() => String, { nullable: true }) project!: string | null;
  @Field(() => String, { nullable: true }) registry!: string | null;
  @Field(() => String) author!: string;
  @Field(() => JSONObjectScalar) payload!: Record<string, unknown>;
  @Field(() => Date) createdAt!: Date;
}

export function toPlatformEvent(event: PlatformEventRecord): PlatformEvent {
  return Object.assign(new PlatformEvent(), { ...event, id: String(event.id) });
}
