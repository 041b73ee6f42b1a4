import {
  getNamedType,
  isInputObjectType,
  isObjectType,
  isScalarType,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLSchema,
} from 'graphql';
import { isPromiseLike } from '../async/guards.js';
import { TrellisError } from '../errors.js';

/**
 * BAD_USER_INPUT errors carry `extensions.field`: where the bad value is, starting with the name of the argument
 * it was passed in (`["body","start","op_name"]`, `["input","base_model"]`). Services cannot say it themselves:
 * they validate payloads shared with REST routes, whose issues are located the REST way (`loc` starting with the
 * request part, `body`/`query`/`path`), and do not know which argument of which field the payload came in. The
 * field does: every field with arguments of a subgraph's schema is wrapped (once, at start-up) so that a bad-input
 * TrellisError leaving it learns its argument path.
 */
export function attachInputFieldPaths(schema: GraphQLSchema): void {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      if (field.args.length === 0) continue;
      if (field.resolve) field.resolve = locating(field.resolve, field);
      if (field.subscribe) field.subscribe = locating(field.subscribe, field);
    }
  }
}

type Resolver = NonNullable<GraphQLField<unknown, unknown>['resolve']>;

function locating(resolve: Resolver, field: GraphQLField<unknown, unknown>): Resolver {
  const locate = (error: unknown): never => {
    if (error instanceof TrellisError && error.publicCode === 'BAD_USER_INPUT' && error.field === undefined) {
      error.field = inputFieldPath(error, field.args);
    }
    throw error;
  };
  return (source, args, context, info) => {
    try {
      const result = resolve(source, args, context, info);
      return isPromiseLike(result) ? Promise.resolve(result).catch(locate) : result;
    } catch (error) {
      return locate(error);
    }
  };
}

/** Request parts REST-located issues start with (platform/validation.ts' pydantic names). */
const REQUEST_PARTS = new Set(['body', 'query', 'path', 'header']);

/**
 * The argument path of an error's first issue (or of its `param`): kept when it starts with an argument's name;
 * a REST request part is replaced by the argument it maps to (a query or path parameter is an argument of the
 * same name; the body is the field's one payload argument, a JSON object or an input type); a bare path inside
 * the payload gets the payload argument's name in front. Undefined when nothing fits.
 */
export function inputFieldPath(error: TrellisError, args: readonly GraphQLArgument[]): (string | number)[] | undefined {
  const path = error.issues?.[0]?.loc ?? error.param?.split('.').map((part) => (/^\d+$/.test(part) ? Number(part) : part));
  if (!path || path.length === 0) return undefined;
  const isArgument = (name: unknown) => args.some((arg) => arg.name === name);
  if (isArgument(path[0])) return path;
  const payloads = args.filter(isPayload);
  const payload = payloads.length === 1 ? payloads[0]!.name : undefined;
  const [first, ...rest] = path;
  if (typeof first === 'string' && REQUEST_PARTS.has(first)) {
    if (rest.length > 0 && isArgument(rest[0])) return rest;
    return first === 'body' && payload ? [payload, ...rest] : undefined;
  }
  return payload ? [payload, ...path] : undefined;
}

function isPayload(arg: GraphQLArgument): boolean {
  const type = getNamedType(arg.type);
  return isInputObjectType(type) || (isScalarType(type) && (type.name === 'JSON' || type.name === 'JSONObject'));
}
