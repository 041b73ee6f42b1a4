import type { Principal } from '../../../platform/auth/principal.js';
import { ForbiddenError, TrellisError } from '../../../platform/errors.js';
import type { PlatformGraph } from '../../../platform/graphql/platform-graph.js';
import { isActingMember } from '../acting-member.js';
import type { MonitorDefinition } from './monitor-definition.js';
import { callFieldValue, textOf, type MonitoredCall } from './monitored-call.js';
import type { MonitorScorer } from './monitor.schemas.js';

/** The model a judge asks when its monitor names none: the platform's embedded model. */
export const DEFAULT_JUDGE_MODEL = 'trellis-tiny';
export const DEFAULT_MAX_TOKENS = 16;
/** Longest reason kept from a judge's answer. */
const REASON_LIMIT = 500;

/** `{{output}}`, `{{inputs.question}}`: a call field (monitored-call.ts paths) in a judge's prompt. */
const PLACEHOLDER = /\{\{\s*([^{}\s]+)\s*\}\}/g;
const FIELD_PATH = /^(output|inputs|attributes|summary|exception)(\.[^.]+)*$/;

/** The call-field paths the template's placeholders name. */
export function placeholderPaths(template: string): string[] {
  return [...template.matchAll(PLACEHOLDER)].map((match) => match[1]!);
}

/** The placeholders of a template that name no call field (for validation: none is allowed). */
export function unknownPlaceholders(template: string): string[] {
  return placeholderPaths(template).filter((path) => !FIELD_PATH.test(path));
}

/** The prompt for one call: each placeholder replaced by that field as text (absent: empty). */
export function renderPrompt(template: string, call: MonitoredCall): string {
  return template.replace(PLACEHOLDER, (_, path: string) => textOf(callFieldValue(call, path)) ?? '');
}

/**
 * A judge's answer as a score: the first number in it, clamped to [min, max] (the scorer's scale, default 0–1); the
 * answer itself is the reason. An answer without a number is no score (the call is counted as failed).
 */
export function parseJudgeAnswer(answer: string, scale: { min: number; max: number }): { score: number; reason: string } | { failed: string } {
  const reason = answer.trim().slice(0, REASON_LIMIT);
  const match = /-?\d+(?:\.\d+)?/.exec(answer);
  if (!match) return { failed: `the judge answered no number: ${JSON.stringify(reason)}` };
  return { score: Math.min(scale.max, Math.max(scale.min, Number(match[0]))), reason };
}

export interface JudgeAnswer {
  text: string;
  promptTokens: number;
  completionTokens: number;
}

/** Asks a catalog model for a monitor (tests and tools may give another). */
export interface ModelJudge {
  ask(monitor: MonitorDefinition, prompt: string): Promise<JudgeAnswer>;
}

const COMPLETION = `mutation MonitorJudge($request: ChatCompletionRequestInput!) {
  createChatCompletion(request: $request) { choices { message { content } } usage { promptTokens completionTokens } }
}`;

interface CompletionResult {
  createChatCompletion: { choices: { message: { content: string | null } }[]; usage: { promptTokens: number; completionTokens: number } | null };
}

/**
 * The judge through the inference family, via the federated graph (tracing never calls a model itself), as the
 * monitor's creator acting in the monitor's team only: the inference family applies its own catalog, limits and usage
 * accounting (under the team's default project, `inference`). No project is named, so the judge's own completions are
 * not traced — traced, they would be calls that the monitor judges in turn. The creator must still be a member of the
 * team (or a platform administrator): asked before every judgement, so someone removed from the team stops spending
 * its model quota at once — their monitor's calls then fail with the reason, until an admin edits or deletes it.
 */
export class GraphJudge implements ModelJudge {
  constructor(private readonly graph: PlatformGraph) {}

  async ask(monitor: MonitorDefinition, prompt: string): Promise<JudgeAnswer> {
    const entity = monitor.projectId.split('/')[0]!;
    const principal: Principal = {
      userId: monitor.createdBy,
      username: `monitor:${monitor.name}`,
      isAdmin: false,
      apiKeyId: `monitor:${monitor.id}`,
      defaultEntity: entity,
      teams: { [entity]: 'MEMBER' },
      projectAdmin: [],
      registryAdmin: [],
    };
    const caller = { principal, requestId: `monitor-${monitor.id}` };
    if (!(await isActingMember(this.graph, caller, entity))) {
      throw new ForbiddenError(`the monitor's creator is no longer a member of ${entity}: the judge asks no model for them`);
    }
    const scorer = monitor.scorer;
    const data = await this.graph.execute<CompletionResult>(
      COMPLETION,
      {
        request: {
          model: scorer.model ?? DEFAULT_JUDGE_MODEL,
          messages: [{ role: 'USER', content: prompt }],
          maxTokens: scorer.max_tokens ?? DEFAULT_MAX_TOKENS,
          temperature: 0,
        },
      },
      caller,
    );
    const completion = data.createChatCompletion;
    return {
      text: completion.choices[0]?.message.content ?? '',
      promptTokens: completion.usage?.promptTokens ?? 0,
      completionTokens: completion.usage?.completionTokens ?? 0,
    };
  }
}

/** Failures worth retrying later (the model or the platform busy or away), rather than counting the call as failed. */
export function isTransientJudgeError(error: unknown): boolean {
  return error instanceof TrellisError && (error.code === 'UNAVAILABLE' || error.code === 'RATE_LIMITED' || error.code === 'UPSTREAM_TIMEOUT');
}

/** The scale a judge's scores are clamped to. */
export function judgeScale(scorer: MonitorScorer): { min: number; max: number } {
  return { min: scorer.score_min ?? 0, max: scorer.score_max ?? 1 };
}
