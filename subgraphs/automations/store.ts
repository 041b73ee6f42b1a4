import { sql, type Kysely, type Selectable } from 'kysely';
import type {
  AutomationsDatabase,
  AutomationsTable,
  DeliveriesTable,
  DeliveryAttemptsTable,
  ScopeKind,
  SecretsTable,
  WebhooksTable,
} from './db/database.js';

export type SecretRow = Selectable<SecretsTable>;
export type WebhookRow = Selectable<WebhooksTable>;
export type AutomationRow = Selectable<AutomationsTable>;
/** What createAutomation/updateAutomation store: the row without its identity and bookkeeping. */
export type AutomationDefinition = Omit<AutomationRow, 'id' | 'created_at' | 'created_by' | 'enabled' | 'event_filter' | 'run_filter'> & {
  enabled: boolean;
  event_filter: Record<string, unknown>;
  run_filter: Record<string, unknown>;
};
export type DeliveryRow = Selectable<DeliveriesTable>;
export type AttemptRow = Selectable<DeliveryAttemptsTable>;

export interface DeliveryFilter {
  team?: string;
  automationId?: string;
  status?: string | null;
}

/** A place in a newest-first list of deliveries: creation time in microseconds since the epoch, then the id. */
export interface DeliveryPosition {
  createdMicros: string;
  id: string;
}

export type NewDelivery = Omit<DeliveryRow, 'status' | 'attempts' | 'next_attempt_at' | 'lease_until' | 'last_status' | 'last_error' | 'created_at' | 'finished_at' | 'variables'> & {
  variables: Record<string, unknown>;
};

export interface AttemptOutcome {
  id: string;
  attempt: number;
  status: 'PENDING' | 'SUCCEEDED' | 'FAILED';
  last_status: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
}

/** NOTIFY channel: deliveries became due (new, or redelivered). */
export const DELIVERIES_CHANNEL = 'trellis_deliveries_due';
/** NOTIFY channel: a delivery's state changed; the payload is its id (for dashboard subscriptions). */
export const DELIVERY_UPDATES_CHANNEL = 'trellis_delivery_updates';

/** Raw SQL names tables itself (Kysely's withSchema only rewrites query-builder queries). */
const DELIVERIES = sql.table('automations.deliveries');

/** Kysely queries of the automations schema; constructed over the subgraph handle or a transaction. */
export class AutomationsStore {
  /**
   * `relaxed` runs on connections with `synchronous_commit = off` (see relaxedTransaction); by default the same
   * handle as `db`, which then sets it per transaction.
   */
  constructor(
    readonly db: Kysely<AutomationsDatabase>,
    private readonly relaxed?: Kysely<AutomationsDatabase>,
  ) {}

  transaction<T>(work: (store: AutomationsStore) => Promise<T>): Promise<T> {
    return this.db.transaction().execute((trx) => work(new AutomationsStore(trx, this.relaxed)));
  }

  /**
   * A transaction whose commit does not wait for the WAL flush (`synchronous_commit = off`). Only for work that is
   * re-derived if a PostgreSQL crash loses it: the engine's deliveries and cursor (re-created from the durable
   * event outbox, with the same deterministic delivery ids) and delivery bookkeeping (a lost "succeeded" means
   * one more send of the same delivery id — at-least-once either way). Cuts an fsync per event and per attempt.
   */
  relaxedTransaction<T>(work: (store: AutomationsStore) => Promise<T>): Promise<T> {
    if (this.relaxed) return this.relaxed.transaction().execute((trx) => work(new AutomationsStore(trx, this.relaxed)));
    return this.db.transaction().execute(async (trx) => {
      await sql`set local synchronous_commit = off`.execute(trx);
      return work(new AutomationsStore(trx));
    });
  }

  async countWebhooks(team: string): Promise<number> {
    const row = await this.db.selectFrom('webhooks').select((eb) => eb.fn.countAll<number>().as('n')).where('team', '=', team).executeTakeFirstOrThrow();
    return Number(row.n);
  }

  // Secrets

  insertSecret(team: string, name: string, ciphertext: string): Promise<SecretRow | undefined> {
    return this.db
      .insertInto('secrets')
      .values({ team, name, ciphertext })
      .onConflict((oc) => oc.columns(['team', 'name']).doNothing())
      .returningAll()
      .executeTakeFirst();
  }

  updateSecret(team: string, name: string, ciphertext: string): Promise<SecretRow | undefined> {
    return this.db
      .updateTable('secrets')
      .set({ ciphertext, updated_at: new Date() })
      .where('team', '=', team)
      .where('name', '=', name)
      .returningAll()
      .executeTakeFirst();
  }

  async deleteSecret(id: string): Promise<void> {
    await this.db.deleteFrom('secrets').where('id', '=', id).execute();
  }

  secret(team: string, name: string): Promise<SecretRow | undefined> {
    return this.db.selectFrom('secrets').selectAll().where('team', '=', team).where('name', '=', name).executeTakeFirst();
  }

  secretById(id: string): Promise<SecretRow | undefined> {
    return this.db.selectFrom('secrets').selectAll().where('id', '=', id).executeTakeFirst();
  }

  secretsOf(team: string): Promise<SecretRow[]> {
    return this.db.selectFrom('secrets').selectAll().where('team', '=', team).orderBy('name').execute();
  }

  webhooksUsingSecret(secretId: string): Promise<WebhookRow[]> {
    return this.db
      .selectFrom('webhooks')
      .selectAll()
      .where((eb) => eb.or([eb('access_token_secret_id', '=', secretId), eb('signing_secret_id', '=', secretId)]))
      .execute();
  }

  // Webhooks

  insertWebhook(values: { team: string; name: string; endpointUrl: string; accessTokenSecretId: string | null; signingSecretId: string | null }): Promise<WebhookRow | undefined> {
    return this.db
      .insertInto('webhooks')
      .values({
        team: values.team,
        name: values.name,
        endpoint_url: values.endpointUrl,
        access_token_secret_id: values.accessTokenSecretId,
        signing_secret_id: values.signingSecretId,
      })
      .onConflict((oc) => oc.columns(['team', 'name']).doNothing())
      .returningAll()
      .executeTakeFirst();
  }

  webhook(id: string): Promise<WebhookRow | undefined> {
    return this.db.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirst();
  }

  webhooksOf(team: string): Promise<WebhookRow[]> {
    return this.db.selectFrom('webhooks').selectAll().where('team', '=', team).orderBy('name').execute();
  }

  async deleteWebhook(id: string): Promise<void> {
    await this.db.deleteFrom('webhooks').where('id', '=', id).execute();
  }

  async setWebhookDisabled(id: string, reason: string | null): Promise<void> {
    await this.db
      .updateTable('webhooks')
      .set({ disabled_at: reason === null ? null : new Date(), disabled_reason: reason })
      .where('id', '=', id)
      .execute();
  }

  // Automations

  insertAutomation(values: AutomationDefinition & { created_by: string }): Promise<AutomationRow | undefined> {
    return this.db
      .insertInto('automations')
      .values({ ...values, event_filter: JSON.stringify(values.event_filter), run_filter: JSON.stringify(values.run_filter) })
      .onConflict((oc) => oc.columns(['team', 'name']).doNothing())
      .returningAll()
      .executeTakeFirst();
  }

  /** Replaces an automation's definition (updateAutomation); the caller checked the name is free. */
  updateAutomation(id: string, values: AutomationDefinition): Promise<AutomationRow | undefined> {
    return this.db
      .updateTable('automations')
      .set({ ...values, event_filter: JSON.stringify(values.event_filter), run_filter: JSON.stringify(values.run_filter) })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
  }

  automationNamed(team: string, name: string): Promise<AutomationRow | undefined> {
    return this.db.selectFrom('automations').selectAll().where('team', '=', team).where('name', '=', name).executeTakeFirst();
  }

  automation(id: string): Promise<AutomationRow | undefined> {
    return this.db.selectFrom('automations').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** A team's automations by name, `limit` of them, those after the name `afterName` when given. */
  automationsOf(team: string, limit?: number, afterName?: string | null): Promise<AutomationRow[]> {
    let query = this.db.selectFrom('automations').selectAll().where('team', '=', team);
    if (afterName !== undefined && afterName !== null) query = query.where('name', '>', afterName);
    query = query.orderBy('name');
    return (limit === undefined ? query : query.limit(limit)).execute();
  }

  automationsUsingWebhook(webhookId: string): Promise<AutomationRow[]> {
    return this.db.selectFrom('automations').selectAll().where('webhook_id', '=', webhookId).execute();
  }

  /** Enabled automations whose scope holds the change and whose event kind is one of `eventTypes`. */
  /** Enabled automations whose scope holds the change, whose kind is one of `eventTypes`, and whose webhook is enabled. */
  watching(team: string, scopeKind: ScopeKind, scopeName: string, eventTypes: string[]): Promise<AutomationRow[]> {
    return this.db
      .selectFrom('automations')
      .innerJoin('webhooks', 'webhooks.id', 'automations.webhook_id')
      .selectAll('automations')
      .where('automations.team', '=', team)
      .where('automations.scope_kind', '=', scopeKind)
      .where('automations.scope_name', '=', scopeName)
      .where('automations.event_type', 'in', eventTypes)
      .where('automations.enabled', '=', true)
      .where('webhooks.disabled_at', 'is', null)
      .execute();
  }

  async setAutomationEnabled(id: string, enabled: boolean): Promise<AutomationRow | undefined> {
    return this.db.updateTable('automations').set({ enabled }).where('id', '=', id).returningAll().executeTakeFirst();
  }

  async deleteAutomation(id: string): Promise<void> {
    await this.db.deleteFrom('automations').where('id', '=', id).execute();
  }

  // Engine

  async lockCursor(name: string): Promise<string | undefined> {
    await this.db.insertInto('engine_cursors').values({ name, cursor: '0.0' }).onConflict((oc) => oc.column('name').doNothing()).execute();
    const row = await this.db.selectFrom('engine_cursors').select('cursor').where('name', '=', name).forUpdate().executeTakeFirst();
    return row?.cursor;
  }

  cursor(name: string): Promise<string | undefined> {
    return this.db.selectFrom('engine_cursors').select('cursor').where('name', '=', name).executeTakeFirst().then((row) => row?.cursor);
  }

  async setCursor(name: string, cursor: string): Promise<void> {
    await this.db.updateTable('engine_cursors').set({ cursor, updated_at: new Date() }).where('name', '=', name).execute();
  }

  async recordMetric(runId: string, metric: string, step: number, value: number): Promise<void> {
    await this.db
      .insertInto('metric_values')
      .values({ run_id: runId, metric, step, value })
      .onConflict((oc) => oc.columns(['run_id', 'metric', 'step']).doUpdateSet({ value }))
      .execute();
  }

  /** The most recent `count` values of a run's metric, newest first, skipping the newest `offset`. */
  recentMetricValues(runId: string, metric: string, count: number, offset = 0): Promise<number[]> {
    return this.db
      .selectFrom('metric_values')
      .select('value')
      .where('run_id', '=', runId)
      .where('metric', '=', metric)
      .orderBy('step', 'desc')
      .limit(count)
      .offset(offset)
      .execute()
      .then((rows) => rows.map((row) => row.value));
  }

  /** Claims the once-per-24h firing of a metric condition; false when it already fired in that period. */
  async claimMetricFiring(automationId: string, runId: string): Promise<boolean> {
    const result = await this.db
      .insertInto('metric_firings')
      .values({ automation_id: automationId, run_id: runId, fired_at: new Date() })
      .onConflict((oc) =>
        oc
          .columns(['automation_id', 'run_id'])
          .doUpdateSet({ fired_at: new Date() })
          .where('metric_firings.fired_at', '<', sql<Date>`now() - interval '24 hours'`),
      )
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
  }

  /** Inserts deliveries, skipping any that already exist for their (automation, event); returns how many were new. */
  async insertDeliveries(rows: NewDelivery[]): Promise<number> {
    if (!rows.length) return 0;
    const result = await this.db
      .insertInto('deliveries')
      .values(rows.map((row) => ({ ...row, variables: JSON.stringify(row.variables) })))
      .onConflict((oc) => oc.columns(['automation_id', 'event_id']).doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0);
  }

  async notify(channel: string, payload = ''): Promise<void> {
    await sql`select pg_notify(${channel}, ${payload})`.execute(this.db);
  }

  // Deliveries

  delivery(id: string): Promise<DeliveryRow | undefined> {
    return this.db.selectFrom('deliveries').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /**
   * Deliveries newest first (created_at, then id), `limit` of them, after the keyset position `before` when given.
   * Each row carries its creation time in microseconds (`created_us`): a keyset needs PostgreSQL's full precision,
   * which a JavaScript Date does not keep.
   */
  deliveriesPage(filter: DeliveryFilter, limit: number, before?: DeliveryPosition | null): Promise<(DeliveryRow & { created_us: string })[]> {
    let query = this.db.selectFrom('deliveries').selectAll().select(sql<string>`(extract(epoch from created_at) * 1000000)::bigint::text`.as('created_us'));
    if (filter.team !== undefined) query = query.where('team', '=', filter.team);
    if (filter.automationId !== undefined) query = query.where('automation_id', '=', filter.automationId);
    if (filter.status) query = query.where('status', '=', filter.status as never);
    if (before) {
      query = query.where(sql<boolean>`(created_at, id) < (timestamptz 'epoch' + ${before.createdMicros}::bigint * interval '1 microsecond', ${before.id}::uuid)`);
    }
    return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  }

  attemptsOf(deliveryId: string): Promise<AttemptRow[]> {
    return this.db.selectFrom('delivery_attempts').selectAll().where('delivery_id', '=', deliveryId).orderBy('attempt').execute();
  }

  /**
   * Leases up to `limit` due deliveries to this worker. `SKIP LOCKED` lets several workers (processes) claim at
   * once without waiting on each other; the lease (not a held row lock) survives only as long as the attempt
   * may take, so a crashed worker's deliveries become due again when it expires. The attempt counter advances
   * at claim time, so a delivery that keeps crashing its worker still runs out of attempts.
   */
  claimDue(limit: number, leaseMs: number): Promise<DeliveryRow[]> {
    // One statement: on the relaxed connections it needs no transaction of its own.
    if (this.relaxed) return new AutomationsStore(this.relaxed).claimDueIn(limit, leaseMs);
    return this.relaxedTransaction((store) => store.claimDueIn(limit, leaseMs));
  }

  private claimDueIn(limit: number, leaseMs: number): Promise<DeliveryRow[]> {
    return sql<DeliveryRow>`
      update ${DELIVERIES} set attempts = attempts + 1, lease_until = now() + ${leaseMs} * interval '1 millisecond'
      where id in (
        select id from ${DELIVERIES}
        where status = 'PENDING' and next_attempt_at <= now() and (lease_until is null or lease_until <= now())
        order by next_attempt_at
        limit ${limit}
        for update skip locked)
      returning *`
      .execute(this.db)
      .then((result) => result.rows);
  }

  /** When the next pending delivery becomes due (or its lease expires), if any. */
  async nextDueAt(): Promise<Date | undefined> {
    const row = await sql<{ due: Date | null }>`
      select min(greatest(next_attempt_at, coalesce(lease_until, next_attempt_at))) as due
      from ${DELIVERIES} where status = 'PENDING'`.execute(this.db);
    return row.rows[0]?.due ?? undefined;
  }

  async insertAttempts(rows: AttemptRow[]): Promise<void> {
    if (!rows.length) return;
    await this.db.insertInto('delivery_attempts').values(rows).onConflict((oc) => oc.columns(['delivery_id', 'attempt']).doNothing()).execute();
  }

  /**
   * Records the outcome of many attempts in one statement; each applies only while its worker still holds the
   * delivery (same attempt number, still pending). Returns the ids (and webhooks) that were updated.
   */
  async finishAttempts(outcomes: AttemptOutcome[]): Promise<{ id: string; webhook_id: string }[]> {
    if (!outcomes.length) return [];
    const { rows } = await sql<{ id: string; webhook_id: string }>`
      update ${DELIVERIES} as d set
        status = v.status,
        lease_until = null,
        last_status = v.last_status,
        last_error = v.last_error,
        next_attempt_at = coalesce(v.next_attempt_at, d.next_attempt_at),
        finished_at = case when v.status = 'PENDING' then null else now() end
      from jsonb_to_recordset(${JSON.stringify(outcomes)}::jsonb)
        as v(id uuid, attempt int, status text, last_status int, last_error text, next_attempt_at timestamptz)
      where d.id = v.id and d.attempts = v.attempt and d.status = 'PENDING'
      returning d.id, d.webhook_id`.execute(this.db);
    return rows;
  }

  async notifyEach(channel: string, payloads: string[]): Promise<void> {
    if (!payloads.length) return;
    await sql`select pg_notify(${channel}, payload) from unnest(${payloads}::text[]) as payload`.execute(this.db);
  }

  /** Makes a finished delivery pending again, keeping its id (and so its receivers' de-duplication key). */
  async requeue(id: string, attemptBudget: number): Promise<DeliveryRow | undefined> {
    return sql<DeliveryRow>`
      update ${DELIVERIES} set status = 'PENDING', next_attempt_at = now(), lease_until = null, finished_at = null,
        attempt_limit = attempts + ${attemptBudget}
      where id = ${id} and status <> 'PENDING'
      returning *`
      .execute(this.db)
      .then((result) => result.rows[0]);
  }
}
