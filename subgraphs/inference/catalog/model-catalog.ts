import { readFile } from 'node:fs/promises';
import type { Kysely } from 'kysely';
import { isTeamMember, type Principal } from '../../../platform/auth/principal.js';
import { ConfigError } from '../../../platform/config.js';
import { NotFoundError, TrellisError } from '../../../platform/errors.js';
import type { NotificationListener } from '../../../platform/events/index.js';
import type { Logger } from '../../../platform/logger.js';
import { validateOrThrow } from '../../../platform/validation.js';
import type { ChatBackend } from '../backends/chat-backend.js';
import type { EmbeddedModelRuntime } from '../backends/embedded/embedded-runtime.js';
import { ChangeFollower } from '../change-follower.js';
import type { InferenceDatabase, ModelSource } from '../db/database.js';
import type { InferenceConfig } from '../inference-config.js';
import { createBackend } from './backend-factory.js';
import { catalogStore as store, MODEL_CATALOG_CHANNEL } from './catalog.store.js';
import { ModelDefinitionSchema, ModelsFileSchema, type ModelDefinition } from './model-definition.schema.js';

export interface CatalogEntry {
  id: string;
  definition: ModelDefinition;
  source: ModelSource;
  createdAt: Date;
  backend: ChatBackend;
  /** The definition as stored; a changed one gets a new backend. */
  fingerprint: string;
}

/**
 * The models this platform serves. The database is the truth (so every process agrees); each process keeps the
 * catalog in memory with a backend per model, because resolving a model is on every request's path. Every write
 * notifies MODEL_CATALOG_CHANNEL in its transaction, so every process (this one included) re-reads the catalog
 * when the change commits; it is also re-read after this process's own changes (so `register` answers with the new
 * entry) and every `catalogRefreshMs`, in case a notification was lost.
 */
export class ModelCatalog {
  private entries = new Map<string, CatalogEntry>();
  private readonly changes: ChangeFollower;

  constructor(
    private readonly db: Kysely<InferenceDatabase>,
    private readonly config: InferenceConfig,
    private readonly env: Readonly<Record<string, string | undefined>>,
    private readonly logger: Logger,
    listener: NotificationListener,
    private readonly embeddedRuntime?: EmbeddedModelRuntime,
  ) {
    this.changes = new ChangeFollower(() => this.load(), {
      listener,
      channel: MODEL_CATALOG_CHANNEL,
      pollMs: config.catalogRefreshMs,
      logger,
      failure: 'model catalog refresh failed',
    });
  }

  /** Applies TRELLIS_MODELS_FILE (when set), loads the catalog and starts following changes to it. */
  async start(): Promise<void> {
    if (this.config.modelsFile) await this.applyModelsFile(this.config.modelsFile);
    await this.ensureDefaultEmbeddedModel();
    await this.changes.start();
  }

  async close(): Promise<void> {
    this.changes.stop();
    const backends = [...this.entries.values()].map((entry) => entry.backend);
    this.entries = new Map();
    await Promise.all(backends.map((backend) => backend.close()));
  }

  /** Models the caller may use: unrestricted ones and those reserved for a team they belong to. */
  visibleTo(principal: Principal): CatalogEntry[] {
    return [...this.entries.values()].filter((entry) => mayUse(principal, entry.definition));
  }

  all(): CatalogEntry[] {
    return [...this.entries.values()];
  }

  /** The model with this id, whoever may use it (for prices, which are not secret). */
  find(id: string): CatalogEntry | undefined {
    return this.entries.get(id);
  }

  /** The model, or the 404 OpenAI clients expect; a model the caller may not use is indistinguishable from none. */
  resolve(id: string, principal: Principal): CatalogEntry {
    const entry = this.entries.get(id);
    if (!entry || !mayUse(principal, entry.definition)) {
      throw new NotFoundError(`The model '${id}' does not exist or you do not have access to it.`, { param: 'model' });
    }
    return entry;
  }

  /** Adds or replaces a model (administrators). The backend is built first, so a definition that cannot serve is refused. */
  async register(input: unknown, source: ModelSource = 'api'): Promise<CatalogEntry> {
    const definition = validateOrThrow(ModelDefinitionSchema, input, 'definition');
    await createBackend(definition, this.config, this.env, this.embeddedRuntime).close();
    await this.db.transaction().execute(async (trx) => {
      await store.upsertModel(trx, definition, source);
      await store.notifyCatalogChanged(trx);
    });
    await this.refresh();
    return this.entries.get(definition.id)!;
  }

  async remove(id: string): Promise<boolean> {
    const deleted = await this.db.transaction().execute(async (trx) => {
      const found = await store.deleteModel(trx, id);
      if (found) await store.notifyCatalogChanged(trx);
      return found;
    });
    await this.refresh();
    return deleted;
  }

  /**
   * Re-reads the catalog; unchanged models keep their backend (and its warm connections). A read requested after a
   * write always starts after it.
   */
  refresh(): Promise<void> {
    return this.changes.refresh();
  }

  private async load(): Promise<void> {
    const rows = await store.listModels(this.db);
    const next = new Map<string, CatalogEntry>();
    const retired: ChatBackend[] = [];
    for (const row of rows) {
      const fingerprint = JSON.stringify(row.definition);
      const current = this.entries.get(row.id);
      if (current && current.fingerprint === fingerprint) {
        next.set(row.id, { ...current, source: row.source });
        continue;
      }
      try {
        const backend = createBackend(row.definition, this.config, this.env, this.embeddedRuntime);
        next.set(row.id, { id: row.id, definition: row.definition, source: row.source, createdAt: row.createdAt, backend, fingerprint });
        if (current) retired.push(current.backend);
      } catch (error) {
        // A row this process cannot serve (e.g. its key variable is missing here) is left out, not fatal.
        this.logger.error({ model: row.id, reason: (error as Error).message }, 'catalog model cannot be served by this process');
        if (current) retired.push(current.backend);
      }
    }
    for (const [id, entry] of this.entries) if (!next.has(id)) retired.push(entry.backend);
    this.entries = next;
    // Pools close once their in-flight requests are done.
    for (const backend of retired) backend.close().catch(() => undefined);
  }

  /** With an embedded runtime, a fresh installation serves its model without any configuration. */
  private async ensureDefaultEmbeddedModel(): Promise<void> {
    const model = this.embeddedRuntime?.defaultModel;
    if (!model) return;
    const definition: ModelDefinition = { id: model.id, backend: 'embedded', root: model.root, owned_by: 'trellis' };
    await this.db.transaction().execute(async (trx) => {
      if ((await store.listModels(trx)).some((row) => row.id === model.id)) return;
      await store.upsertModel(trx, definition, 'config');
      await store.notifyCatalogChanged(trx);
    });
  }

  /**
   * The file is the truth for the models it lists: they are upserted, and models an earlier version of the file
   * added but this one no longer lists are removed; models registered through the API are left alone unless the
   * file names the same id.
   */
  private async applyModelsFile(file: string): Promise<void> {
    let parsed: unknown;
    try {
      parsed = JSON.parse(await readFile(file, 'utf8'));
    } catch (error) {
      throw new ConfigError(`TRELLIS_MODELS_FILE ${file} cannot be read as JSON: ${(error as Error).message}`);
    }
    let models: ModelDefinition[];
    try {
      models = validateOrThrow(ModelsFileSchema, parsed, 'file').models;
      for (const definition of models) await createBackend(definition, this.config, this.env, this.embeddedRuntime).close();
    } catch (error) {
      const issues = error instanceof TrellisError && error.issues ? `: ${JSON.stringify(error.issues)}` : '';
      throw new ConfigError(`TRELLIS_MODELS_FILE ${file} is invalid: ${(error as Error).message}${issues}`);
    }
    const ids = models.map((model) => model.id);
    const duplicate = ids.find((id, index) => ids.indexOf(id) !== index);
    if (duplicate) throw new ConfigError(`TRELLIS_MODELS_FILE ${file} lists model '${duplicate}' twice`);
    await this.db.transaction().execute(async (trx) => {
      await store.deleteConfigModelsExcept(trx, ids);
      for (const definition of models) await store.upsertModel(trx, definition, 'config');
      await store.notifyCatalogChanged(trx);
    });
    this.logger.info({ file, models: ids }, 'model catalog file applied');
  }
}

function mayUse(principal: Principal, definition: ModelDefinition): boolean {
  if (!definition.teams || definition.teams.length === 0) return true;
  return definition.teams.some((team) => isTeamMember(principal, team));
}
