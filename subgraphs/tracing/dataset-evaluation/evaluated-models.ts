import { TrellisError, type ValidationIssue } from '../../../platform/errors.js';
import type { GraphCaller, PlatformGraph } from '../../../platform/graphql/platform-graph.js';
import { isActingMember } from '../acting-member.js';

/** One message of a prompt, as OpenAI clients write it (role in lower case). */
export interface PromptMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** How one completion is asked: deterministically (temperature 0 and a fixed seed). */
export interface CompletionSettings {
  maxTokens: number;
  seed: number;
}

export interface ModelAnswer {
  text: string;
  promptTokens: number;
  completionTokens: number;
}

/** `wandb-artifact:///{entity}/{project}/{model}:{alias}`: a training checkpoint, answered by training chat. */
const CHECKPOINT_REF = /^wandb-artifact:\/\/\/([^/]+)\/([^/]+)\/([^/:]+):([A-Za-z0-9_.-]+)$/;
/** `{entity}/{project}/{model}:{alias}`: a promoted checkpoint's inference name (inference resolves it through the registry). */
const PROMOTED_NAME = /^([A-Za-z0-9][A-Za-z0-9_.-]*)\/([A-Za-z0-9][A-Za-z0-9_.-]*)\/([A-Za-z0-9][A-Za-z0-9_.-]*):([A-Za-z][A-Za-z0-9_.-]{0,63})$/;

const CATALOG_MODEL = `query EvaluatedCatalogModel($id: String!) { inferenceModel(id: $id) { id } }`;
const TRAINING_CHECKPOINT = `query EvaluatedTrainingCheckpoint($model: String!) { trainingServedModel(model: $model) { baseModel } }`;
const PROMOTED_CHECKPOINT = `query EvaluatedPromotedCheckpoint($entity: String!, $project: String!, $collection: String!, $version: String) {
  artifactVersionByName(entity: $entity, project: $project, collection: $collection, version: $version) { id type }
}`;
const INFERENCE_COMPLETION = `mutation EvaluatedInferenceCompletion($request: ChatCompletionRequestInput!) {
  answer: createChatCompletion(request: $request) { choices { message { content } } usage { promptTokens completionTokens } }
}`;
const TRAINING_COMPLETION = `mutation EvaluatedTrainingCompletion($request: ChatCompletionRequestInput!) {
  answer: createTrainingChatCompletion(request: $request) { choices { message { content } } usage { promptTokens completionTokens } }
}`;

interface CompletionResult {
  answer: { choices: { message: { content: string | null } }[]; usage: { promptTokens: number; completionTokens: number } | null };
}

/**
 * The models an evaluation asks, reached through the federated graph only (tracing never runs a model) and always as
 * the caller who started the evaluation, so the inference and training families apply that caller's own rights,
 * catalog visibility, limits and usage accounting. Inference names are asked with `createChatCompletion` naming no
 * project (a traced completion would be a call of the project that monitors score and lists show; the evaluation
 * records its predictions itself), checkpoint refs with `createTrainingChatCompletion`.
 */
export class EvaluatedModels {
  constructor(private readonly graph: PlatformGraph) {}

  /**
   * The names the caller cannot be answered by, as issues at `["body", "models", i]`: a catalog id the caller may not
   * use, a `wandb-artifact:///` ref training chat would not serve, or a promoted name the registry has no model
   * version for. Each name is checked by the family that will answer it: training serves a checkpoint from its own
   * tables the moment its job succeeded, while the registry's copy follows from an event moments later.
   */
  async unknown(models: readonly string[], caller: GraphCaller): Promise<ValidationIssue[]> {
    const issues: ValidationIssue[] = [];
    for (const [index, model] of models.entries()) {
      const why = await this.whyUnusable(model, caller);
      if (why) issues.push({ loc: ['body', 'models', index], msg: why, type: 'value_error' });
    }
    return issues;
  }

  /** One completion of the prompt by the model, at temperature 0 with the given seed. */
  async ask(model: string, messages: readonly PromptMessage[], settings: CompletionSettings, caller: GraphCaller): Promise<ModelAnswer> {
    const request = {
      model,
      messages: messages.map((message) => ({ role: message.role.toUpperCase(), content: message.content })),
      maxTokens: settings.maxTokens,
      temperature: 0,
      seed: settings.seed,
    };
    const operation = CHECKPOINT_REF.test(model) ? TRAINING_COMPLETION : INFERENCE_COMPLETION;
    const { answer } = await this.graph.execute<CompletionResult>(operation, { request }, caller);
    return {
      text: answer.choices[0]?.message.content ?? '',
      promptTokens: answer.usage?.promptTokens ?? 0,
      completionTokens: answer.usage?.completionTokens ?? 0,
    };
  }

  /**
   * Whether the caller may still write to the entity's projects, read now from identity (their memberships as they
   * are, not as their request's principal had them): a run acts for its caller only while they are a member.
   */
  async callerStillMember(entity: string, caller: GraphCaller): Promise<boolean> {
    return isActingMember(this.graph, caller, entity);
  }

  private async whyUnusable(model: string, caller: GraphCaller): Promise<string | null> {
    const checkpoint = CHECKPOINT_REF.exec(model);
    if (checkpoint) return this.whyNotServedByTraining(model, caller);
    if (await this.found(() => this.graph.execute(CATALOG_MODEL, { id: model }, caller))) return null;
    const promoted = PROMOTED_NAME.exec(model);
    if (promoted) return this.whyNoPromotedCheckpoint(model, promoted, caller);
    return `No catalog model ${model} that you may use`;
  }

  private async whyNotServedByTraining(model: string, caller: GraphCaller): Promise<string | null> {
    try {
      await this.graph.execute(TRAINING_CHECKPOINT, { model }, caller);
      return null;
    } catch (error) {
      // Training's own words (which step or alias it lacks); BAD_REQUEST is an alias of no form training knows.
      if (error instanceof TrellisError && ['NOT_FOUND', 'FORBIDDEN', 'BAD_REQUEST'].includes(error.code)) {
        return `No training checkpoint that you can use: ${error.message}`;
      }
      throw error;
    }
  }

  private async whyNoPromotedCheckpoint(model: string, [, entity, project, collection, version]: RegExpExecArray, caller: GraphCaller): Promise<string | null> {
    let type: string | undefined;
    const found = await this.found(async () => {
      const data = await this.graph.execute<{ artifactVersionByName: { type: string } | null }>(PROMOTED_CHECKPOINT, { entity, project, collection, version }, caller);
      type = data.artifactVersionByName?.type;
    });
    return found && type === 'model' ? null : `No promoted checkpoint ${model} that you can read (${collection}:${version} is not a model version of ${entity}/${project})`;
  }

  /** Runs a lookup: false when the owning family answers NOT_FOUND or FORBIDDEN (the same to the caller), other errors thrown. */
  private async found(lookup: () => Promise<unknown>): Promise<boolean> {
    try {
      await lookup();
      return true;
    } catch (error) {
      if (error instanceof TrellisError && (error.code === 'NOT_FOUND' || error.code === 'FORBIDDEN')) return false;
      throw error;
    }
  }
}
