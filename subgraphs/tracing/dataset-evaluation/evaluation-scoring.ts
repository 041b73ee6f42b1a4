import { compileCheck, type ScoreOutcome } from '../monitor/built-in-checks.js';
import { DEFAULT_JUDGE_MODEL, DEFAULT_MAX_TOKENS, judgeScale, parseJudgeAnswer, renderPrompt } from '../monitor/llm-judge.js';
import type { MonitoredCall } from '../monitor/monitored-call.js';
import type { MonitorScorer } from '../monitor/monitor.schemas.js';
import type { CompletionSettings, ModelAnswer, PromptMessage } from './evaluated-models.js';

/** Asks a model as the evaluation's caller (EvaluatedModels.ask, with the runner's retries). */
export type AskModel = (model: string, messages: PromptMessage[], settings: CompletionSettings) => Promise<ModelAnswer>;

/** One answer of one model to one row, as the monitors' scorers read a call. */
export interface ScoredAnswer {
  projectId: string;
  predictionId: string;
  model: string;
  row: Record<string, unknown>;
  answer: string;
}

/**
 * Scores an answer with the monitors' own scoring code (one implementation): the answer is read as a call whose
 * `inputs` are the dataset row (so `inputs.expected` is the row's expected column) and whose `output` is the answer
 * text; built-in checks run as compiled for monitors, an LLM judge renders the monitor prompt template and parses its
 * answer the monitors' way. The judge is asked as the evaluation's caller (never as someone the platform makes up),
 * at temperature 0 with the evaluation's seed.
 */
export async function scoreAnswer(
  scorer: MonitorScorer,
  answer: ScoredAnswer,
  ask: AskModel,
  seed: number,
): Promise<ScoreOutcome> {
  const call: MonitoredCall = {
    project_id: answer.projectId,
    id: answer.predictionId,
    op_name: null,
    parent_id: null,
    attributes: { model: answer.model },
    inputs: answer.row,
    output: answer.answer,
    summary: {},
    exception: null,
  };
  if (scorer.kind !== 'llm_judge') {
    try {
      return compileCheck(scorer)(call);
    } catch (error) {
      return { failed: `the check failed: ${(error as Error).message}` };
    }
  }
  try {
    const judged = await ask(scorer.model ?? DEFAULT_JUDGE_MODEL, [{ role: 'user', content: renderPrompt(scorer.prompt ?? '', call) }], {
      maxTokens: scorer.max_tokens ?? DEFAULT_MAX_TOKENS,
      seed,
    });
    return parseJudgeAnswer(judged.text, judgeScale(scorer));
  } catch (error) {
    return { failed: `the judge failed: ${(error as Error).message}` };
  }
}
