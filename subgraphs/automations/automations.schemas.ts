import { Type, type Static } from '@sinclair/typebox';

/** Request schemas of the automations subgraph, in one place (GraphQL inputs are validated against these). */
const Name = Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9_. -]{0,127}$' });
const Entity = Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$' });
const Optional = <T extends ReturnType<typeof Type.String> | ReturnType<typeof Type.Number> | ReturnType<typeof Type.Integer>>(schema: T) =>
  Type.Optional(Type.Union([schema, Type.Null()]));

/** Secret names double as payload variables (`${NAME}` / `$NAME`), so they are identifiers. */
export const SecretNameSchema = Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]{0,63}$' });
export const SecretValueSchema = Type.String({ minLength: 1, maxLength: 8192 });

export const CreateWebhookSchema = Type.Object({
  team: Entity,
  name: Name,
  endpointUrl: Type.String({ pattern: '^https?://[^\\s]+$', maxLength: 2048 }),
  accessTokenSecret: Type.Optional(Type.Union([SecretNameSchema, Type.Null()])),
  signingSecret: Type.Optional(Type.Union([SecretNameSchema, Type.Null()])),
});
export type CreateWebhook = Static<typeof CreateWebhookSchema>;

export const AUTOMATION_EVENT_TYPES = [
  'CREATE_ARTIFACT',
  'LINK_ARTIFACT',
  'ADD_ARTIFACT_ALIAS',
  'ADD_ARTIFACT_TAG',
  'RUN_METRIC',
  'RUN_METRIC_CHANGE',
  'RUN_STATE',
  // Tracing: a monitor's mean score fell below its threshold (platform/events/contracts.ts MONITOR_SCORE_DROP_EVENT).
  'MONITOR_SCORE_DROP',
] as const;
export type AutomationEventType = (typeof AUTOMATION_EVENT_TYPES)[number];
/** Registry scope watches links and aliases; project scope watches everything. */
export const REGISTRY_SCOPE_EVENTS: readonly AutomationEventType[] = ['LINK_ARTIFACT', 'ADD_ARTIFACT_ALIAS'];

export const AGGREGATIONS = ['AVG', 'MIN', 'MAX'] as const;
export const COMPARISONS = ['GT', 'GTE', 'LT', 'LTE', 'EQ', 'NE'] as const;
export const CHANGE_KINDS = ['ABSOLUTE', 'RELATIVE'] as const;
export const CHANGE_DIRECTIONS = ['INCREASE', 'DECREASE', 'ANY'] as const;
export const WATCHED_RUN_STATES = ['RUNNING', 'FINISHED', 'FAILED', 'KILLED'] as const;

const Regex = Type.String({ minLength: 1, maxLength: 256 });
const Window = Type.Integer({ minimum: 1, maximum: 1000 });

export const AutomationEventSchema = Type.Object({
  type: Type.Union(AUTOMATION_EVENT_TYPES.map((value) => Type.Literal(value))),
  aliasRegex: Optional(Regex),
  tagRegex: Optional(Regex),
  metricName: Optional(Type.String({ minLength: 1, maxLength: 256 })),
  window: Optional(Window),
  aggregation: Type.Optional(Type.Union([Type.Union(AGGREGATIONS.map((value) => Type.Literal(value))), Type.Null()])),
  comparison: Type.Optional(Type.Union([Type.Union(COMPARISONS.map((value) => Type.Literal(value))), Type.Null()])),
  threshold: Optional(Type.Number()),
  priorWindow: Optional(Window),
  changeKind: Type.Optional(Type.Union([Type.Union(CHANGE_KINDS.map((value) => Type.Literal(value))), Type.Null()])),
  changeDirection: Type.Optional(Type.Union([Type.Union(CHANGE_DIRECTIONS.map((value) => Type.Literal(value))), Type.Null()])),
  changeAmount: Optional(Type.Number({ exclusiveMinimum: 0 })),
  runStates: Type.Optional(Type.Union([Type.Array(Type.Union(WATCHED_RUN_STATES.map((value) => Type.Literal(value))), { minItems: 1 }), Type.Null()])),
});
export type AutomationEvent = Static<typeof AutomationEventSchema>;

export const RunFilterSchema = Type.Object({
  user: Optional(Type.String({ minLength: 1, maxLength: 128 })),
  runNameRegex: Optional(Regex),
});
export type RunFilter = Static<typeof RunFilterSchema>;

export const CreateAutomationSchema = Type.Object({
  entity: Entity,
  scopeKind: Type.Union([Type.Literal('PROJECT'), Type.Literal('REGISTRY')]),
  scopeName: Entity,
  name: Type.String({ minLength: 1, maxLength: 128 }),
  description: Optional(Type.String({ maxLength: 4096 })),
  event: AutomationEventSchema,
  runFilter: Type.Optional(Type.Union([RunFilterSchema, Type.Null()])),
  webhookId: Type.String({ format: 'uuid' }),
  payload: Type.String({ minLength: 1, maxLength: 65536 }),
  enabled: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
});
export type CreateAutomation = Static<typeof CreateAutomationSchema>;
