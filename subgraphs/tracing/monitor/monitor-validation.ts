import { ValidationFailedError } from '../../../platform/errors.js';
import { validateOrThrow } from '../../../platform/validation.js';
import { compileCheck, InvalidCheckError } from './built-in-checks.js';
import { MonitorBody } from './monitor.schemas.js';

/**
 * The one place a monitor definition is judged: its schema (name, rate in (0, 1], fields), then what only compiling
 * the check can tell (a pattern RE2 refuses, a JSON Schema Ajv cannot compile, bounds the wrong way round, a missing
 * setting). Issues are located in the body (`["body","scorer","pattern"]`), which GraphQL reports under `input`.
 */
export function validateMonitor(body: unknown): MonitorBody {
  const monitor = validateOrThrow(MonitorBody, body, 'body');
  try {
    compileCheck(monitor.scorer);
  } catch (error) {
    if (!(error instanceof InvalidCheckError)) throw error;
    throw new ValidationFailedError([{ loc: ['body', 'scorer', error.setting], msg: error.message, type: 'value_error' }], error.message);
  }
  return monitor;
}
