import type { ColumnType, Generated } from 'kysely';

export interface WebhooksTable {
  id: Generated<string>;
  team: string;
  name: string;
  endpoint_url: string;
  created_at: ColumnType<Date, Date | undefined, never>;
}

export interface AutomationsDatabase {
  webhooks: WebhooksTable;
}
