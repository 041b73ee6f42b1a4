import { ValidationFailedError } from '../../../platform/errors.js';
import { validateOrThrow } from '../../../platform/validation.js';
import { compileCheck, InvalidCheckError } from './built-in-checks.js';
import { judgeScale, unknownPlaceholders } from './llm-judge.js';
import { MonitorBody } from './monitor.schemas.js';

/**
 * The one place a monitor definition is judged: its schema (name, rate in (0, 1], fields), then what only compiling
 * the check can tell (a pattern RE2 refuses, a JSON Schema Ajv cannot compile, bounds the wrong way round, a missing
 * setting). Issues are located in the body (`["body","scorer","pattern"]`), which GraphQL reports under `input`.
 */
export function validateMonitor(body: unknown): MonitorBody {
  const monitor = validateOrThrow(MonitorBody, body, 'body');
  try {
    checkScorer(monitor.scorer);
  } catch (error) {
    if (!(error instanceof InvalidCheckError)) throw error;
    throw new ValidationFailedError([{ loc: ['body', 'scorer', error.setting], msg: error.message, type: 'value_error' }], error.message);
  }
  return monitor;
}

/** What only compiling a scorer can tell (also the dataset evaluations' scorers): InvalidCheckError naming the setting at fault. */
export function checkScorer(scorer: MonitorBody['scorer']): void {
  if (scorer.kind === 'llm_judge') checkJudge(scorer);
  else compileCheck(scorer);
}

/** What an LLM judge needs: a prompt whose placeholders name call fields, and a scale with room in it. */
function checkJudge(scorer: MonitorBody['scorer']): void {
  if (!scorer.prompt) throw new InvalidCheckError('prompt', 'An llm_judge needs a prompt');
  const unknown = unknownPlaceholders(scorer.prompt);
  if (unknown.length > 0) {
    throw new InvalidCheckError('prompt', `Unknown placeholder {{${unknown[0]}}}: use {{output}}, {{inputs}}, {{inputs.<key>}}, {{attributes.<key>}}, {{summary.<key>}} or {{exception}}`);
  }
  const scale = judgeScale(scorer);
  if (!(scale.min < scale.max)) throw new InvalidCheckError('score_max', 'score_max must be greater than score_min');
}
