import { Field, ID, InputType, Int, Float, ObjectType, registerEnumType } from 'type-graphql';
import { connectionTypes } from '../../../platform/graphql/connection.js';
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
registerEnumType(AutomationEventTypeEnum, { name: 'AutomationEventType', description: 'The kind of change an automation watches' });
registerEnumType(AutomationScopeKindEnum, { name: 'AutomationScopeKind', description: 'What an automation watches: a project or a registry' });
registerEnumType(MetricAggregationEnum, { name: 'MetricAggregation', description: 'AVG, MIN or MAX over the window' });
registerEnumType(MetricComparisonEnum, { name: 'MetricComparison', description: 'GT >, GTE >=, LT <, LTE <=, EQ ==, NE !=' });
registerEnumType(MetricChangeKindEnum, { name: 'MetricChangeKind', description: 'A change measured in the metric\'s units (ABSOLUTE) or as a fraction of the prior value (RELATIVE)' });
registerEnumType(MetricChangeDirectionEnum, { name: 'MetricChangeDirection', description: 'Which way the metric must move to trigger' });
registerEnumType(WatchedRunStateEnum, { name: 'WatchedRunState', description: 'A run state an automation can watch for' });

const EVENT = {
  type: 'The kind of change watched',
  aliasRegex: 'ADD_ARTIFACT_ALIAS (required): regex on the alias',
  tagRegex: 'ADD_ARTIFACT_TAG: regex on the tag',
  metricName: 'RUN_METRIC / RUN_METRIC_CHANGE: metric name; MONITOR_SCORE_DROP: only this monitor (absent: any of the project)',
  window: 'RUN_METRIC / RUN_METRIC_CHANGE: most recent values considered (default 5; change: 10)',
  aggregation: 'RUN_METRIC / RUN_METRIC_CHANGE: how the window is summarised (default AVG)',
  comparison: 'RUN_METRIC: how the summary is compared with the threshold',
  threshold: 'RUN_METRIC: the value compared against',
  priorWindow: 'RUN_METRIC_CHANGE: values before the window compared against (default 50)',
  changeKind: 'RUN_METRIC_CHANGE: absolute or relative change',
  changeDirection: 'RUN_METRIC_CHANGE: which way the metric must move',
  changeAmount: 'RUN_METRIC_CHANGE: by how much (metric units, or a fraction for RELATIVE)',
  runStates: 'RUN_STATE: states that trigger (default FINISHED, FAILED)',
};

@InputType('AutomationEventInput', { description: 'The watched event and its extra fields' })
export class AutomationEventInput {
  @Field(() => AutomationEventTypeEnum, { description: EVENT.type }) type!: (typeof AUTOMATION_EVENT_TYPES)[number];
  @Field(() => String, { nullable: true, description: EVENT.aliasRegex }) aliasRegex?: string | null;
  @Field(() => String, { nullable: true, description: EVENT.tagRegex }) tagRegex?: string | null;
  @Field(() => String, { nullable: true, description: EVENT.metricName }) metricName?: string | null;
  @Field(() => Int, { nullable: true, description: EVENT.window }) window?: number | null;
  @Field(() => MetricAggregationEnum, { nullable: true, description: EVENT.aggregation }) aggregation?: (typeof AGGREGATIONS)[number] | null;
  @Field(() => MetricComparisonEnum, { nullable: true, description: EVENT.comparison }) comparison?: (typeof COMPARISONS)[number] | null;
  @Field(() => Float, { nullable: true, description: EVENT.threshold }) threshold?: number | null;
  @Field(() => Int, { nullable: true, description: EVENT.priorWindow }) priorWindow?: number | null;
  @Field(() => MetricChangeKindEnum, { nullable: true, description: EVENT.changeKind }) changeKind?: (typeof CHANGE_KINDS)[number] | null;
  @Field(() => MetricChangeDirectionEnum, { nullable: true, description: EVENT.changeDirection }) changeDirection?: (typeof CHANGE_DIRECTIONS)[number] | null;
  @Field(() => Float, { nullable: true, description: EVENT.changeAmount }) changeAmount?: number | null;
  @Field(() => [WatchedRunStateEnum], { nullable: true, description: EVENT.runStates }) runStates?: (typeof WATCHED_RUN_STATES)[number][] | null;
}

@InputType('RunFilterInput', { description: 'Run events only: one user\'s runs, and/or a regex on the run name' })
export class RunFilterInput {
  @Field(() => String, { nullable: true, description: 'Only runs of this user' }) user?: string | null;
  @Field(() => String, { nullable: true, description: 'Only runs whose name matches this regex' }) runNameRegex?: string | null;
}

@InputType('CreateAutomationInput', { description: 'An automation to create: what it watches, and the webhook it calls with which payload' })
export class CreateAutomationInput {
  @Field(() => String, { description: 'Team owning the scope and the webhook' }) entity!: string;
  @Field(() => AutomationScopeKindEnum, { description: 'Whether scopeName names a project or a registry' }) scopeKind!: (typeof SCOPE_KINDS)[number];
  @Field(() => String, { description: 'Registry or project name (all its collections, including later ones)' }) scopeName!: string;
  @Field(() => String, { description: 'Name of the automation, unique in the team' }) name!: string;
  @Field(() => String, { nullable: true, description: 'What the automation is for' }) description?: string | null;
  @Field(() => AutomationEventInput, { description: 'The watched event' }) event!: AutomationEventInput;
  @Field(() => RunFilterInput, { nullable: true, description: 'Run events only: which runs' }) runFilter?: RunFilterInput | null;
  @Field(() => ID, { description: 'The webhook (of the same team) to call' }) webhookId!: string;
  @Field(() => String, { description: 'JSON payload template with ${variables} (a template, so a string)' }) payload!: string;
  @Field(() => Boolean, { nullable: true, description: 'Default true: created automations start active' }) enabled?: boolean | null;
}

@ObjectType('AutomationEvent', { description: 'The event an automation watches, with the documented defaults filled in' })
export class AutomationEvent {
  @Field(() => AutomationEventTypeEnum, { description: EVENT.type }) type!: string;
  @Field(() => String, { nullable: true, description: EVENT.aliasRegex }) aliasRegex!: string | null;
  @Field(() => String, { nullable: true, description: EVENT.tagRegex }) tagRegex!: string | null;
  @Field(() => String, { nullable: true, description: EVENT.metricName }) metricName!: string | null;
  @Field(() => Int, { nullable: true, description: EVENT.window }) window!: number | null;
  @Field(() => MetricAggregationEnum, { nullable: true, description: EVENT.aggregation }) aggregation!: string | null;
  @Field(() => MetricComparisonEnum, { nullable: true, description: EVENT.comparison }) comparison!: string | null;
  @Field(() => Float, { nullable: true, description: EVENT.threshold }) threshold!: number | null;
  @Field(() => Int, { nullable: true, description: EVENT.priorWindow }) priorWindow!: number | null;
  @Field(() => MetricChangeKindEnum, { nullable: true, description: EVENT.changeKind }) changeKind!: string | null;
  @Field(() => MetricChangeDirectionEnum, { nullable: true, description: EVENT.changeDirection }) changeDirection!: string | null;
  @Field(() => Float, { nullable: true, description: EVENT.changeAmount }) changeAmount!: number | null;
  @Field(() => [WatchedRunStateEnum], { nullable: true, description: EVENT.runStates }) runStates!: string[] | null;
}

@ObjectType('RunFilter', { description: 'Which runs a run-event automation watches (all of them when both are null)' })
export class RunFilter {
  @Field(() => String, { nullable: true, description: 'Only runs of this user' }) user!: string | null;
  @Field(() => String, { nullable: true, description: 'Only runs whose name matches this regex' }) runNameRegex!: string | null;
}

@ObjectType('Automation', { description: 'A rule that calls a webhook when a watched change happens in a project or registry' })
export class Automation {
  @Field(() => ID, { description: 'Id of the automation' }) id!: string;
  @Field(() => String, { description: 'Team owning it' }) entity!: string;
  @Field(() => String, { description: 'Name, unique in the team' }) name!: string;
  @Field(() => String, { nullable: true, description: 'What it is for' }) description!: string | null;
  @Field(() => AutomationScopeKindEnum, { description: 'Whether it watches a project or a registry' }) scopeKind!: string;
  @Field(() => String, { description: 'The project or registry watched' }) scopeName!: string;
  @Field(() => AutomationEventTypeEnum, { description: 'The kind of change watched (event.type)' }) eventType!: string;
  @Field(() => AutomationEvent, { description: 'The event and its extra fields, defaults filled in' }) event!: AutomationEvent;
  @Field(() => RunFilter, { description: 'Run events: which runs (both fields null: all)' }) runFilter!: RunFilter;
  @Field(() => ID, { description: 'The webhook it calls' }) webhookId!: string;
  @Field(() => String, { description: 'The JSON payload template with ${variables}' }) payload!: string;
  @Field(() => Boolean, { description: 'Whether it is active' }) enabled!: boolean;
  @Field(() => String, { description: 'ACTIVE or DISABLED' }) state!: string;
  @Field(() => String, { description: 'Username of its creator' }) createdBy!: string;
  @Field(() => Date, { description: 'When it was created' }) createdAt!: Date;
}

export const AutomationConnection = connectionTypes(Automation, 'Automation', 'automation');

const field = <T>(source: Record<string, unknown>, key: string, guard: (value: unknown) => value is T): T | null =>
  guard(source[key]) ? (source[key] as T) : null;
const isString = (value: unknown): value is string => typeof value === 'string';
const isNumber = (value: unknown): value is number => typeof value === 'number';
const isStrings = (value: unknown): value is string[] => Array.isArray(value) && value.every(isString);

/** The stored event filter (the validated AutomationEventInput with defaults filled in) as its object type. */
export function toAutomationEvent(stored: Record<string, unknown>): AutomationEvent {
  return Object.assign(new AutomationEvent(), {
    type: String(stored.type),
    aliasRegex: field(stored, 'aliasRegex', isString),
    tagRegex: field(stored, 'tagRegex', isString),
    metricName: field(stored, 'metricName', isString),
    window: field(stored, 'window', isNumber),
    aggregation: field(stored, 'aggregation', isString),
    comparison: field(stored, 'comparison', isString),
    threshold: field(stored, 'threshold', isNumber),
    priorWindow: field(stored, 'priorWindow', isNumber),
    changeKind: field(stored, 'changeKind', isString),
    changeDirection: field(stored, 'changeDirection', isString),
    changeAmount: field(stored, 'changeAmount', isNumber),
    runStates: field(stored, 'runStates', isStrings),
  });
}

export function toAutomation(row: AutomationRow): Automation {
  const runFilter = (row.run_filter ?? {}) as Record<string, unknown>;
  return Object.assign(new Automation(), {
    id: row.id,
    entity: row.team,
    name: row.name,
    description: row.description,
    scopeKind: row.scope_kind,
    scopeName: row.scope_name,
    eventType: row.event_type,
    event: toAutomationEvent(row.event_filter ?? {}),
    runFilter: Object.assign(new RunFilter(), { user: field(runFilter, 'user', isString), runNameRegex: field(runFilter, 'runNameRegex', isString) }),
    webhookId: row.webhook_id,
    payload: row.payload_template,
    enabled: row.enabled,
    state: row.enabled ? 'ACTIVE' : 'DISABLED',
    createdBy: row.created_by,
    createdAt: row.created_at,
  });
}
