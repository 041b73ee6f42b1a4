import { Field, ID, ObjectType } from 'type-graphql';
import type { PlatformEvent as PlatformEventRecord } from '../../../platform/events/index.js';
import { connectionTypes } from '../../../platform/graphql/connection.js';
import { JSONObjectScalar } from '../../../platform/graphql/scalars.js';

@ObjectType('PlatformEvent', { description: 'A change recorded in the platform event outbox' })
export class PlatformEvent {
  @Field(() => ID, { description: 'Id of the event in the outbox' }) id!: string;
  @Field(() => String, { description: 'Resume position: pass it as `after` to continue after this event' }) cursor!: string;
  @Field(() => String, { description: 'What happened, e.g. CREATE_ARTIFACT, RUN_STATE, training.run_finished, inference.completions' }) type!: string;
  @Field(() => String, { description: 'The team it happened in' }) entity!: string;
  @Field(() => String, { nullable: true, description: 'The project it happened in, if any' }) project!: string | null;
  @Field(() => String, { nullable: true, description: 'The registry it happened in, if any' }) registry!: string | null;
  @Field(() => String, { description: 'Username of who caused it' }) author!: string;
  @Field(() => JSONObjectScalar, { description: 'The details, as the publishing subgraph records them (they differ per type)' }) payload!: Record<string, unknown>;
  @Field(() => Date, { description: 'When it was recorded' }) createdAt!: Date;
}

export const PlatformEventConnection = connectionTypes(PlatformEvent, 'PlatformEvent', 'platform event');

export function toPlatformEvent(event: PlatformEventRecord): PlatformEvent {
  return Object.assign(new PlatformEvent(), { ...event, id: String(event.id) });
}
