import { Field, Float, ID, InputType, ObjectType, registerEnumType } from 'type-graphql';
import { JSONObjectScalar } from '../../../platform/graphql/scalars.js';
import {
  AGGREGATIONS,
  AUTOMATION_EVENT_TYPES,
  CHANGE_DIRECTIONS,
  CHANGE_KINDS,
  COMPARISONS,
  WATCHED_RUN_STATES,
} from '../automations.schemas.js';
import { SCOPE_KINDS } from '../db/database.js';
import type { AutomationRow } from '../store.js';

const enumOf = <T extends readonly string[]>(values: T) => Object.fromEntries(values.map((value) => [value, value])) as { [K in T[number]]: K };
export const AutomationEventTypeEnum = enumOf(AUTOMATION_EVENT_TYPES);
export const AutomationScopeKindEnum = enumOf(SCOPE_KINDS);
export const MetricAggregationEnum = enumOf(AGGREGATIONS);
export const MetricComparisonEnum = enumOf(COMPARISONS);
export const MetricChangeKindEnum = enumOf(CHANGE_KINDS);
export const MetricChangeDirectionEnum = enumOf(CHANGE_DIRECTIONS);
export const WatchedRunStateEnum = enumOf(WATCHED_RUN_STATES);
registerEnumType(AutomationEventTypeEnum, { name: 'AutomationEventType' });
registerEnumType(AutomationScopeKindEnum, { name: 'AutomationScopeKind' });
registerEnumType(MetricAggregationEnum, { name: 'MetricAggregation', description: 'AVG, MIN or MAX over the window' });
registerEnumType(MetricComparisonEnum, { name: 'MetricComparison', description: 'GT >, GTE >=, LT <, LTE <=, EQ ==, NE !=' });
registerEnumType(MetricChangeKindEnum, { name: 'MetricChangeKind' });
registerEnumType(MetricChangeDirectionEnum, { name: 'MetricChangeDirection' });
registerEnumType(WatchedRunStateEnum, { name: 'WatchedRunState' });

@InputType('AutomationEventInput', { description: 'The watched event and its extra fields' })
export class AutomationEventInput {
  @Field(() => AutomationEventTypeEnum) type!: (typeof AUTOMATION_EVENT_TYPES)[number];
  @Field(() => String, { nullable: true, description: 'ADD_ARTIFACT_ALIAS (required): regex on the alias' }) aliasRegex?: string | null;
  @Field(() => String, { nullable: true, description: 'ADD_ARTIFACT_TAG: regex on the tag' }) tagRegex?: string | null;
  @Field(() => String, { nullable: true, description: 'RUN_METRIC / RUN_METRIC_CHANGE: metric name' }) metricName?: string | null;
  @Field(() => Float, { nullable: true, description: 'Most recent values considered (default 5; change: 10)' }) window?: number | null;
  @Field(() => MetricAggregationEnum, { nullable: true }) aggregation?: (typeof AGGREGATIONS)[number] | null;
  @Field(() => MetricComparisonEnum, { nullable: true }) comparison?: (typeof COMPARISONS)[number] | null;
  @Field(() => Float, { nullable: true }) threshold?: number | null;
  @Field(() => Float, { nullable: true, description: 'RUN_METRIC_CHANGE: values before the window compared against (default 50)' }) priorWindow?: number | null;
  @Field(() => MetricChangeKindEnum, { nullable: true }) changeKind?: (typeof CHANGE_KINDS)[number] | null;
  @Field(() => MetricChangeDirectionEnum, { nullable: true }) changeDirection?: (typeof CHANGE_DIRECTIONS)[number] | null;
  @Field(() => Float, { nullable: true }) changeAmount?: number | null;
  @Field(() => [WatchedRunStateEnum], { nullable: true, description: 'RUN_STATE: states that trigger (default FINISHED, FAILED)' })
  runStates?: (typeof WATCHED_RUN_STATES)[number][] | null;
}

@InputType('RunFilterInput', { description: 'Run events only: one user\'s runs, and/or a regex on the run name' })
export class RunFilterInput {
  @Field(() => String, { nullable: true }) user?: string | null;
  @Field(() => String, { nullable: true }) runNameRegex?: string | null;
}

@InputType('CreateAutomationInput')
export class CreateAutomationInput {
  @Field(() => String, { description: 'Team owning the scope and the webhook' }) entity!: string;
  @Field(() => AutomationScopeKindEnum) scopeKind!: (typeof SCOPE_KINDS)[number];
  @Field(() => String, { description: 'Registry or project name (all its collections, including later ones)' }) scopeName!: string;
  @Field(() => String) name!: string;
  @Field(() => String, { nullable: true }) description?: string | null;
  @Field(() => AutomationEventInput) event!: AutomationEventInput;
  @Field(() => RunFilterInput, { nullable: true }) runFilter?: RunFilterInput | null;
  @Field(() => ID) webhookId!: string;
  @Field(() => String, { description: 'JSON payload template with ${variables}' }) payload!: string;
  @Field(() => Boolean, { nullable: true, description: 'Default true: created automations start active' }) enabled?: boolean | null;
}

@ObjectType('Automation')
export class Automation {
  @Field(() => ID) id!: string;
  @Field(() => String) entity!: string;
  @Field(() => String) name!: string;
  @Field(() => String, { nullable: true }) description!: string | null;
  @Field(() => AutomationScopeKindEnum) scopeKind!: string;
  @Field(() => String) scopeName!: string;
  @Field(() => AutomationEventTypeEnum) eventType!: string;
  @Field(() => JSONObjectScalar, { description: 'The event and its extra fields, defaults filled in' }) event!: Record<string, unknown>;
  @Field(() => JSONObjectScalar) runFilter!: Record<string, unknown>;
  @Field(() => ID) webhookId!: string;
  @Field(() => String) payload!: string;
  @Field(() => Boolean) enabled!: boolean;
  @Field(() => String, { description: 'ACTIVE or DISABLED' }) state!: string;
  @Field(() => String) createdBy!: string;
  @Field(() => Date) createdAt!: Date;
}

export function toAutomation(row: AutomationRow): Automation {
  return Object.assign(new Automation(), {
    id: row.id,
    entity: row.team,
    name: row.name,
    description: row.description,
    scopeKind: row.scope_kind,
    scopeName: row.scope_name,
    eventType: row.event_type,
    event: row.event_filter,
    runFilter: row.run_filter,
    webhookId: row.webhook_id,
    payload: row.payload_template,
    enabled: row.enabled,
    state: row.enabled ? 'ACTIVE' : 'DISABLED',
    createdBy: row.created_by,
    createdAt: row.created_at,
  });
}
