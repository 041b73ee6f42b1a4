import {
  defaultFieldResolver,
  getArgumentValues,
  getNamedType,
  getVariableValues,
  isLeafType,
  isNonNullType,
  Kind,
  locatedError,
  type DocumentNode,
  type ExecutionResult,
  type FieldNode,
  type GraphQLField,
  type GraphQLLeafType,
  type GraphQLObjectType,
  type GraphQLResolveInfo,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { inspect } from 'graphql/jsutils/inspect.js';
import { isAsyncIterable, isPromiseLike } from '../async/guards.js';
import type { GraphQLContext } from './context.js';

/**
 * The resolver of a subscription field whose event source yields the field's values themselves (the subgraph's bound
 * subscriptions, platform/subgraph.ts): a LeafFieldOperation completes such events without calling it.
 */
export const eventIsValue = (event: unknown): unknown => event;

/**
 * An operation that selects one root field of a scalar or enum type (`mutation ($body: JSONObject!) {
 * openaiChatCompletion(body: $body) }`), executed without an execution engine: coerce the variables, compute the
 * field's arguments, call its resolver (or, for a subscription, its event source, then its resolver per event) and
 * serialize the value — what graphql-js does for such an operation, minus the machinery for selection sets, which a
 * leaf has none of. Results, errors (located, with `originalError`) and event streams have graphql-js's shapes.
 *
 * Why: the inference hot path's operations are of this kind, and a streamed completion executes its subscription's
 * selection once per chunk; graphql-jit's compiled execution still built a result tree, an error collector and
 * promise chains for every event.
 */
export class LeafFieldOperation {
  private constructor(
    private readonly schema: GraphQLSchema,
    private readonly operation: OperationDefinitionNode,
    private readonly parentType: GraphQLObjectType,
    private readonly field: GraphQLField<unknown, unknown>,
    private readonly node: FieldNode,
    private readonly leafType: GraphQLLeafType,
  ) {}

  /** The operation as a LeafFieldOperation, or undefined when it is not one (fragments, directives, objects, lists). */
  static of(schema: GraphQLSchema, document: DocumentNode): LeafFieldOperation | undefined {
    if (document.definitions.length !== 1) return undefined;
    const operation = document.definitions[0]!;
    if (operation.kind !== Kind.OPERATION_DEFINITION || operation.directives?.length) return undefined;
    const selections = operation.selectionSet.selections;
    if (selections.length !== 1 || selections[0]!.kind !== Kind.FIELD) return undefined;
    const node = selections[0]!;
    if (node.directives?.length || node.selectionSet) return undefined;
    const parentType = schema.getRootType(operation.operation);
    const field = parentType?.getFields()[node.name.value];
    if (!parentType || !field) return undefined;
    const nullable = isNonNullType(field.type) ? field.type.ofType : field.type;
    if (!isLeafType(nullable)) return undefined; // lists and objects need the engine
    return new LeafFieldOperation(schema, operation, parentType, field, node, getNamedType(nullable) as GraphQLLeafType);
  }

  async execute(context: GraphQLContext, variables: Record<string, unknown>): Promise<ExecutionResult> {
    const prepared = this.prepare(variables);
    if (!prepared.ok) return prepared.result;
    const { variableValues, info } = prepared;
    try {
      // An argument that cannot be computed is a field error, as in graphql-js's executeField.
      const args = getArgumentValues(this.field, this.node, variableValues);
      const value = await (this.field.resolve ?? defaultFieldResolver)(undefined, args, context, info);
      return this.complete(value);
    } catch (error) {
      return this.failed(error);
    }
  }

  /**
   * As graphql-js's `subscribe`: an event source that cannot be created (argument error, subscribe function throwing,
   * rejecting or returning an Error) is a `{ errors }` result without data; one that is not async iterable (including
   * none at all: graphql-js then reads the field off the undefined root) rejects, a programming error.
   */
  async subscribe(context: GraphQLContext, variables: Record<string, unknown>): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult> {
    const prepared = this.prepare(variables);
    if (!prepared.ok) return prepared.result;
    const { variableValues, info } = prepared;
    let args: Record<string, unknown>;
    let source: unknown;
    try {
      args = getArgumentValues(this.field, this.node, variableValues);
      source = await (this.field.subscribe ?? defaultFieldResolver)(undefined, args, context, info);
      if (source instanceof Error) throw source;
    } catch (error) {
      return { errors: [locatedError(error, [this.node], [this.key])] };
    }
    if (!isAsyncIterable(source)) throw new Error(`Subscription field must return Async Iterable. Received: ${inspect(source)}.`);
    return this.events(source[Symbol.asyncIterator](), args, context, info);
  }

  private get key(): string {
    return this.node.alias?.value ?? this.node.name.value;
  }

  private prepare(
    variables: Record<string, unknown>,
  ): { ok: true; variableValues: Record<string, unknown>; info: GraphQLResolveInfo } | { ok: false; result: ExecutionResult } {
    const coerced = getVariableValues(this.schema, this.operation.variableDefinitions ?? [], variables, { maxErrors: 50 });
    if (coerced.errors) return { ok: false, result: { errors: coerced.errors } };
    const variableValues = coerced.coerced;
    const info: GraphQLResolveInfo = {
      fieldName: this.field.name,
      fieldNodes: [this.node],
      returnType: this.field.type,
      parentType: this.parentType,
      path: { prev: undefined, key: this.key, typename: this.parentType.name },
      schema: this.schema,
      fragments: {},
      rootValue: undefined,
      operation: this.operation,
      variableValues,
    };
    return { ok: true, variableValues, info };
  }

  /** The field's value as graphql-js completes a leaf: null checks, then the type's serialization. */
  private complete(value: unknown): ExecutionResult {
    if (value instanceof Error) return this.failed(value);
    if (value === null || value === undefined) {
      if (isNonNullType(this.field.type)) {
        return this.failed(new Error(`Cannot return null for non-nullable field ${this.parentType.name}.${this.field.name}.`));
      }
      return { data: { [this.key]: null } };
    }
    try {
      const serialized = this.leafType.serialize(value);
      if (serialized === null || serialized === undefined) {
        throw new Error(`Expected \`${inspect(this.leafType)}.serialize(${inspect(value)})\` to return non-nullable value, returned: ${inspect(serialized)}`);
      }
      return { data: { [this.key]: serialized } };
    } catch (error) {
      return this.failed(error);
    }
  }

  /**
   * A field error: the field's value is null, and so is `data` when the field is non-null (graphql-js's rule). Keys in
   * graphql-js's order (`errors` first), so the serialized response is the same text.
   */
  private failed(error: unknown): ExecutionResult {
    const located = locatedError(error, [this.node], [this.key]);
    return isNonNullType(this.field.type) ? { errors: [located], data: null } : { errors: [located], data: { [this.key]: null } };
  }

  /**
   * Each event of the source, resolved and completed as one result: graphql-js's mapAsyncIterator over an execution
   * with the event as the root value. The field's arguments are computed once (graphql-js recomputes equal ones per
   * event).
   */
  private events(
    source: AsyncIterator<unknown>,
    args: Record<string, unknown>,
    context: GraphQLContext,
    info: GraphQLResolveInfo,
  ): AsyncIterableIterator<ExecutionResult> {
    const resolve = this.field.resolve ?? defaultFieldResolver;
    // A streamed completion passes ten events per request through here: with the identity resolver, no resolve
    // info, resolver call or promise per event (they were ≈ 7 % of what a streamed request allocates).
    const complete = (event: IteratorResult<unknown>): IteratorResult<ExecutionResult> =>
      event.done ? event : { done: false, value: this.complete(event.value) };
    const map = async (event: IteratorResult<unknown>): Promise<IteratorResult<ExecutionResult>> => {
      if (event.done) return event;
      // As graphql-js executes each event: a resolver's error is the event's result (errors), not the stream's end.
      try {
        let value = resolve(event.value, args, context, { ...info, rootValue: event.value });
        if (isPromiseLike(value)) value = await value;
        return { done: false, value: this.complete(value) };
      } catch (error) {
        return { done: false, value: this.failed(error) };
      }
    };
    const iterator: AsyncIterableIterator<ExecutionResult> = {
      [Symbol.asyncIterator]: () => iterator,
      next: resolve === eventIsValue ? () => source.next().then(complete) : async () => map(await source.next()),
      // Called when the consumer stops early: the source is told at once (not after its pending event).
      return: async () => (source.return ? map(await source.return()) : { done: true, value: undefined }),
      throw: async (error: unknown) => {
        if (source.throw) return map(await source.throw(error));
        try {
          await source.return?.();
        } catch {
          // The error thrown in is the one to report, as in graphql-js.
        }
        throw error;
      },
    };
    return iterator;
  }
}
