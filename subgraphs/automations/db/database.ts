import type { ColumnType, Generated } from 'kysely';

type CreatedAt = ColumnType<Date, Date | undefined, never>;
type Json<T> = ColumnType<T, string, string>;

export const SCOPE_KINDS = ['PROJECT', 'REGISTRY'] as const;
export type ScopeKind = (typeof SCOPE_KINDS)[number];

export const DELIVERY_STATUSES = ['PENDING', 'SUCCEEDED', 'FAILED'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export interface SecretsTable {
  id: Generated<string>;
  team: string;
  name: string;
  ciphertext: string;
  created_at: CreatedAt;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

export interface WebhooksTable {
  id: Generated<string>;
  team: string;
  name: string;
  endpoint_url: string;
  access_token_secret_id: string | null;
  signing_secret_id: string | null;
  disabled_at: Date | null;
  disabled_reason: string | null;
  created_at: CreatedAt;
}

export interface AutomationsTable {
  id: Generated<string>;
  team: string;
  name: string;
  description: string | null;
  scope_kind: ScopeKind;
  scope_name: string;
  event_type: string;
  event_filter: Json<Record<string, unknown>>;
  run_filter: Json<Record<string, unknown>>;
  webhook_id: string;
  payload_template: string;
  enabled: Generated<boolean>;
  created_by: string;
  created_at: CreatedAt;
}

export interface EngineCursorsTable {
  name: string;
  cursor: string;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

export interface DeliveriesTable {
  id: string;
  automation_id: string;
  webhook_id: string;
  team: string;
  event_id: number;
  event_type: string;
  payload_template: string;
  variables: Json<Record<string, unknown>>;
  status: Generated<DeliveryStatus>;
  attempts: Generated<number>;
  attempt_limit: number;
  next_attempt_at: ColumnType<Date, Date | undefined, Date>;
  lease_until: Date | null;
  last_status: number | null;
  last_error: string | null;
  created_at: CreatedAt;
  finished_at: Date | null;
}

export interface DeliveryAttemptsTable {
  delivery_id: string;
  attempt: number;
  started_at: Date;
  finished_at: Date;
  response_status: number | null;
  response_body: string | null;
  error: string | null;
}

export interface MetricValuesTable {
  run_id: string;
  metric: string;
  step: number;
  value: number;
}

export interface MetricFiringsTable {
  automation_id: string;
  run_id: string;
  fired_at: Date;
}

export interface AutomationsDatabase {
  secrets: SecretsTable;
  webhooks: WebhooksTable;
  automations: AutomationsTable;
  engine_cursors: EngineCursorsTable;
  deliveries: DeliveriesTable;
  delivery_attempts: DeliveryAttemptsTable;
  metric_values: MetricValuesTable;
  metric_firings: MetricFiringsTable;
}
