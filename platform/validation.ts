import { Ajv, type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import type { TSchema, Static } from '@sinclair/typebox';
import { ValidationFailedError, type ValidationIssue } from './errors.js';

/**
 * One Ajv instance validates every REST request (all errors at once, like pydantic), and its errors are
 * rewritten into FastAPI/pydantic's `{loc, msg, type}` items, which Weave and ART clients know how to show.
 */
export const ajv = new Ajv({ allErrors: true, coerceTypes: false, useDefaults: true, strict: false });
addFormats.default(ajv);

/** pydantic's name for each request part. */
const LOCATION: Record<string, string> = { body: 'body', querystring: 'query', params: 'path', headers: 'header' };

export function toValidationIssues(errors: ErrorObject[], part: string): ValidationIssue[] {
  const root = LOCATION[part] ?? part;
  // An `if` error only says which branch failed, a `propertyNames` error only that a key is bad; the branch's or the
  // key's own errors, reported alongside, say what is wrong.
  return errors.filter((error) => error.keyword !== 'if' && error.keyword !== 'propertyNames').map((error) => {
    // A key of a dictionary that breaks `propertyNames`: pydantic's location of a key, `[..., key, "[key]"]`.
    const key = error.propertyName === undefined ? [] : [error.propertyName, '[key]'];
    const loc: (string | number)[] = [root, ...pointerToPath(error.instancePath), ...key];
    switch (error.keyword) {
      case 'required':
        return { loc: [...loc, String(error.params.missingProperty)], msg: 'Field required', type: 'missing' };
      case 'additionalProperties':
        return {
          loc: [...loc, String(error.params.additionalProperty)],
          msg: 'Extra inputs are not permitted',
          type: 'extra_forbidden',
        };
      case 'type':
        return { loc, ...typeIssue(String(error.params.type)) };
      case 'minimum':
        return { loc, msg: `Input should be greater than or equal to ${error.params.limit}`, type: 'greater_than_equal' };
      case 'exclusiveMinimum':
        return { loc, msg: `Input should be greater than ${error.params.limit}`, type: 'greater_than' };
      case 'maximum':
        return { loc, msg: `Input should be less than or equal to ${error.params.limit}`, type: 'less_than_equal' };
      case 'exclusiveMaximum':
        return { loc, msg: `Input should be less than ${error.params.limit}`, type: 'less_than' };
      case 'enum':
        return {
          loc,
          msg: `Input should be ${(error.params.allowedValues as unknown[]).map((v) => `'${String(v)}'`).join(', ').replace(/, ([^,]*)$/, ' or $1')}`,
          type: 'enum',
        };
      case 'const':
        return { loc, msg: `Input should be '${String(error.params.allowedValue)}'`, type: 'literal_error' };
      case 'minLength':
        return { loc, msg: `String should have at least ${error.params.limit} characters`, type: 'string_too_short' };
      case 'maxLength':
        return { loc, msg: `String should have at most ${error.params.limit} characters`, type: 'string_too_long' };
      case 'minItems':
        return { loc, msg: `List should have at least ${error.params.limit} items`, type: 'too_short' };
      case 'maxItems':
        return { loc, msg: `List should have at most ${error.params.limit} items`, type: 'too_long' };
      case 'maxProperties':
        return { loc, msg: `Dictionary should have at most ${error.params.limit} items`, type: 'too_long' };
      case 'pattern':
        return { loc, msg: `String should match pattern '${error.params.pattern}'`, type: 'string_pattern_mismatch' };
      case 'format':
        return { loc, msg: `Input should be a valid ${error.params.format}`, type: `${error.params.format}_parsing` };
      default:
        return { loc, msg: error.message ?? 'Invalid value', type: 'value_error' };
    }
  });
}

function typeIssue(expected: string): { msg: string; type: string } {
  const first = expected.split(',')[0];
  switch (first) {
    case 'integer':
      return { msg: 'Input should be a valid integer', type: 'int_type' };
    case 'number':
      return { msg: 'Input should be a valid number', type: 'float_type' };
    case 'string':
      return { msg: 'Input should be a valid string', type: 'string_type' };
    case 'boolean':
      return { msg: 'Input should be a valid boolean', type: 'bool_type' };
    case 'array':
      return { msg: 'Input should be a valid list', type: 'list_type' };
    case 'object':
      return { msg: 'Input should be a valid dictionary or object to extract fields from', type: 'model_attributes_type' };
    default:
      return { msg: `Input should be of type ${expected}`, type: 'type_error' };
  }
}

function pointerToPath(pointer: string): (string | number)[] {
  if (!pointer) return [];
  return pointer
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((part) => (/^\d+$/.test(part) ? Number(part) : part));
}

const compiled = new WeakMap<TSchema, ReturnType<typeof ajv.compile>>();

/**
 * Validates a value against a TypeBox schema (the same one the REST route declares) and returns it typed, or
 * throws a ValidationFailedError whose issues say where the value is wrong. `part` is the request part the
 * value came from (`body`, `querystring`, `params`), used as the first element of each issue's `loc`.
 */
export function validateOrThrow<S extends TSchema>(schema: S, value: unknown, part = 'body'): Static<S> {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  if (!validate(value)) throw new ValidationFailedError(toValidationIssues(validate.errors ?? [], part));
  return value as Static<S>;
}

/**
 * Integer bounds of what request integers become in PostgreSQL: `integer` (int4) columns, OFFSET/LIMIT and
 * interval arithmetic. JSON Schema's `integer` alone admits 2^31 or 1e300, which the database answers with an
 * error; schemas bound every integer that reaches SQL so such a value is a 422 at its field instead.
 */
export const INT4_MAX = 2_147_483_647;
export const INT4_MIN = -2_147_483_648;
/** Milliseconds since the epoch: the range of a JavaScript Date (±8.64e15). */
export const EPOCH_MS_MAX = 8_640_000_000_000_000;
