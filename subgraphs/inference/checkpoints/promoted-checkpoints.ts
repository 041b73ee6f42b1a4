import { createHash, randomUUID } from 'node:crypto';
import { NotFoundError, TrellisError } from '../../../platform/errors.js';
import type { GraphCaller, PlatformGraph } from '../../../platform/graphql/platform-graph.js';
import type { Principal } from '../../../platform/auth/principal.js';
import type { ChatBackend } from '../backends/chat-backend.js';
import { EmbeddedBackend } from '../backends/embedded/embedded-backend.js';
import type { EmbeddedAdapter, EmbeddedModelRuntime } from '../backends/embedded/embedded-runtime.js';
import type { PromotedCheckpointName } from './promoted-checkpoint-name.js';

const CONFIG_FILE = 'adapter_config.json';
const WEIGHTS_FILE = 'adapter_model.safetensors';
/** Adapters kept in memory (a tiny model's LoRA is ~100 KB; a few promoted checkpoints are what is served). */
const CACHED_ADAPTERS = 16;

const VERSION_QUERY = `query PromotedCheckpoint($entity: String!, $project: String!, $collection: String!, $version: String) {
  artifactVersionByName(entity: $entity, project: $project, collection: $collection, version: $version) { id type metadata createdAt }
}`;
const FILES_QUERY = `query PromotedCheckpointFiles($entity: String!, $project: String!, $collection: String!, $version: String, $config: String!, $weights: String!) {
  artifactVersionByName(entity: $entity, project: $project, collection: $collection, version: $version) {
    id
    config: file(path: $config) { digest contentBase64 }
    weights: file(path: $weights) { digest contentBase64 }
  }
}`;

const NAMED_ALIASES_QUERY = `query PromotedCheckpointsListed($first: Int) {
  namedArtifactAliases(type: "model", first: $first) { entity project collection alias metadata createdAt }
}`;
/** Promoted checkpoints a model list names at most (the registry's page; newest first). */
const LISTED_CHECKPOINTS = 100;

interface NamedAliasesResult {
  namedArtifactAliases: { entity: string; project: string; collection: string; alias: string; metadata: Record<string, unknown>; createdAt: string }[];
}

interface VersionResult {
  artifactVersionByName: { id: string; type: string; metadata: Record<string, unknown>; createdAt: string } | null;
}

/** What GET /inference/v1/models/{name} says of a checkpoint served under its registry name. */
export interface ServedCheckpoint {
  /** `{entity}/{project}/{model}:{alias}`, as the client named it */
  id: string;
  /** The embedded base model its adapter applies to */
  baseModel: string;
  /** When the artifact version the alias names now was created */
  createdAt: Date;
}
interface FilesResult {
  artifactVersionByName: { id: string; config: { digest: string; contentBase64: string } | null; weights: { digest: string; contentBase64: string } | null } | null;
}

/**
 * Serves training checkpoints under their registry name, `{entity}/{project}/{model}:{alias}` (promoted aliases such
 * as `production`, or `latest`/`step<N>`), on the embedded runtime with the checkpoint's LoRA adapter. The alias is
 * resolved through the federated graph as the caller on every request — the registry moves it when a checkpoint is
 * promoted (training.checkpoint_promoted), so the next request follows it — and the adapter files are read once per
 * artifact version. Inference never reads training's or the registry's tables; the registry applies its own access
 * rules, so a checkpoint the caller may not read is the same 404 as a missing one.
 */
export class PromotedCheckpoints {
  private readonly adapters = new Map<string, EmbeddedAdapter>();

  constructor(
    private readonly graph: PlatformGraph,
    private readonly runtime: EmbeddedModelRuntime | undefined,
  ) {}

  /** The backend that serves the checkpoint the name points at now, or the OpenAI 404 naming `model`. */
  async resolve(name: PromotedCheckpointName, principal: Principal, requestId: string | undefined, signal?: AbortSignal): Promise<ChatBackend> {
    const { runtime, root, found, variables, caller, missing } = await this.find(name, principal, requestId, signal);
    const adapter = this.adapters.get(found.id) ?? (await this.loadAdapter(variables, caller, missing));
    return new EmbeddedBackend(runtime, root, adapter);
  }

  /** The checkpoint the name points at now, as a model a client may retrieve; the same 404 as `resolve` otherwise. */
  async describe(name: PromotedCheckpointName, principal: Principal, requestId: string | undefined): Promise<ServedCheckpoint> {
    const { publicName, runtime, found } = await this.find(name, principal, requestId);
    return { id: publicName, baseModel: runtime.defaultModel!.id, createdAt: new Date(found.createdAt) };
  }

  /**
   * The promoted checkpoints the caller may call, as GET /inference/v1/models lists them: the named aliases of model
   * artifacts in the caller's teams' projects (the registry answers as the caller) whose base model the embedded
   * runtime serves — what `describe` would answer for each. None without an embedded runtime.
   */
  async listed(principal: Principal, requestId: string | undefined): Promise<ServedCheckpoint[]> {
    const base = this.runtime?.defaultModel;
    if (!base?.root) return [];
    const caller: GraphCaller = { principal, requestId: requestId ?? randomUUID() };
    const { namedArtifactAliases } = await this.graph.execute<NamedAliasesResult>(NAMED_ALIASES_QUERY, { first: LISTED_CHECKPOINTS }, caller);
    return namedArtifactAliases
      .filter((named) => named.metadata.base_model === base.id)
      .map((named) => ({ id: `${named.entity}/${named.project}/${named.collection}:${named.alias}`, baseModel: base.id, createdAt: new Date(named.createdAt) }));
  }

  /** The artifact version the alias names now, checked to be a checkpoint this platform's embedded runtime serves. */
  private async find(name: PromotedCheckpointName, principal: Principal, requestId: string | undefined, signal?: AbortSignal) {
    const publicName = `${name.entity}/${name.project}/${name.model}:${name.alias}`;
    const missing = (why: string) => new NotFoundError(`The model '${publicName}' does not exist or you do not have access to it (${why}).`, { param: 'model' });
    const runtime = this.runtime;
    const root = runtime?.defaultModel?.root;
    if (!runtime || !root) throw missing('this platform runs no embedded model runtime to serve checkpoints');
    const caller: GraphCaller = { principal, requestId: requestId ?? randomUUID(), ...(signal ? { signal } : {}) };
    const variables = { entity: name.entity, project: name.project, collection: name.model, version: name.alias };
    const found = (await this.graph.execute<VersionResult>(VERSION_QUERY, variables, caller)).artifactVersionByName;
    if (!found || found.type !== 'model') throw missing(`no training checkpoint with alias "${name.alias}" that you can read`);
    if (found.metadata.base_model !== runtime.defaultModel?.id) {
      throw missing(`its base model ${String(found.metadata.base_model)} is not served by this platform's embedded runtime`);
    }
    return { publicName, runtime, root, found, variables, caller, missing };
  }

  /**
   * Reads the PEFT files of the version the alias names and caches them under the version's id. Should the alias
   * have moved since the first query, these are the files of where it points now — still what the caller asked for.
   */
  private async loadAdapter(variables: Record<string, string>, caller: GraphCaller, missing: (why: string) => TrellisError): Promise<EmbeddedAdapter> {
    const files = (await this.graph.execute<FilesResult>(FILES_QUERY, { ...variables, config: CONFIG_FILE, weights: WEIGHTS_FILE }, caller)).artifactVersionByName;
    if (!files) throw missing(`no training checkpoint with alias "${variables.version}" that you can read`);
    if (!files.config || !files.weights) throw missing('its artifact version has no adapter files');
    const adapter: EmbeddedAdapter = {
      id: `registry:${files.id}`,
      adapterConfigJson: decode(files.config, CONFIG_FILE).toString('utf8'),
      safetensorsBytes: decode(files.weights, WEIGHTS_FILE),
    };
    if (this.adapters.size >= CACHED_ADAPTERS) this.adapters.delete(this.adapters.keys().next().value!);
    this.adapters.set(files.id, adapter);
    return adapter;
  }
}

/** The bytes, checked against the registry's digest (base64 through two hops of JSON). */
function decode(file: { digest: string; contentBase64: string }, path: string): Buffer {
  const bytes = Buffer.from(file.contentBase64, 'base64');
  if (createHash('sha256').update(bytes).digest('hex') !== file.digest) {
    throw new TrellisError(502, 'UPSTREAM_ERROR', `${path} of the checkpoint arrived damaged (digest mismatch)`);
  }
  return bytes;
}
