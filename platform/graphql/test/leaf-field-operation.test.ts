import type { FastifyBaseLogger } from 'fastify';
import {
  buildSchema,
  execute,
  GraphQLError,
  parse,
  subscribe,
  type ExecutionResult,
  type GraphQLFieldResolver,
  type GraphQLObjectType,
  type GraphQLResolveInfo,
  type GraphQLScalarType,
} from 'graphql';
import { describe, expect, it, vi } from 'vitest';
import type { GraphQLContext } from '../context.js';
import { eventIsValue, LeafFieldOperation } from '../leaf-field-operation.js';

// Every behaviour is checked side by side: the same document, variables and context through LeafFieldOperation and
// through graphql-js's own `execute` / `subscribe`, on one schema whose resolvers are assigned on its fields.
const schema = buildSchema(`
  scalar JSONObject
  scalar Loose
  enum Color { RED GREEN }
  type Viewer { id: ID! }
  type Query {
    hello(name: String = "world"): String!
    maybe: String
    count: Int
    color: Color!
    badColor: Color
    double(n: Int!): Int!
    doubleNullable(n: Int!): Int
    viewer: Viewer
    tags: [String!]!
    failing: String!
    failingNullable: String
    returnsError: String!
    missing: String!
    missingNullable: String
    rejected: String!
    loose: Loose
    seen(n: Int = 7, color: Color): JSONObject!
  }
  type Mutation {
    echo(body: JSONObject!, times: Int = 1): JSONObject!
  }
  type Subscription {
    ticks(from: Int!, failAt: Int): Int!
    ticksNullable(failAt: Int): Int
    tick: Int
    throwing: Int
    erroring: Int
    rejecting: Int
    notIterable: Int
    noSource: Int
    stalled: Int
    root: JSONObject
    recovering: String
    bound: Int!
  }
`);

type Resolvers = { resolve?: GraphQLFieldResolver<unknown, GraphQLContext>; subscribe?: GraphQLFieldResolver<unknown, GraphQLContext> };
function on(type: GraphQLObjectType | null | undefined, resolvers: Record<string, Resolvers>): void {
  const fields = type!.getFields();
  for (const [name, { resolve, subscribe: source }] of Object.entries(resolvers)) {
    if (resolve) fields[name]!.resolve = resolve;
    if (source) fields[name]!.subscribe = source;
  }
}

/** Thrown by resolvers: one instance, so both engines' errors can be checked to keep it as `originalError`. */
const boom = new Error('boom');
class UpstreamError extends Error {}
const upstream = new UpstreamError('upstream failed');

on(schema.getQueryType(), {
  hello: { resolve: (_, { name }) => `Hello, ${name as string}` },
  maybe: { resolve: () => undefined },
  count: { resolve: () => 'not a number' },
  color: { resolve: () => 'GREEN' },
  badColor: { resolve: () => 'PURPLE' },
  double: { resolve: (_, { n }) => (n as number) * 2 },
  doubleNullable: { resolve: (_, { n }) => (n as number) * 2 },
  viewer: { resolve: () => ({ id: 'v1' }) },
  tags: { resolve: () => ['a', 'b'] },
  failing: {
    resolve: () => {
      throw boom;
    },
  },
  failingNullable: {
    resolve: () => {
      throw boom;
    },
  },
  returnsError: { resolve: () => upstream },
  missing: { resolve: () => null },
  missingNullable: { resolve: () => null },
  rejected: { resolve: () => Promise.reject(upstream) },
  loose: { resolve: () => 'nothing' },
  seen: {
    resolve: (source, args, context, info) => ({
      source: source ?? 'none',
      args,
      sameContext: context === testContext,
      fieldName: info.fieldName,
      path: info.path,
      parentType: info.parentType.name,
      returnType: String(info.returnType),
      rootValue: info.rootValue ?? 'none',
      operation: info.operation.name?.value ?? 'anonymous',
      variableValues: info.variableValues,
    }),
  },
});
on(schema.getMutationType(), {
  echo: { resolve: (_, { body, times }) => ({ received: body, times, list: [1, 'two', { three: 3 }], nothing: null }) },
});

/** The source of `ticks`-like fields: the events given, as an async generator that records its closing. */
const closed = vi.fn();
async function* events<T>(values: T[]): AsyncGenerator<T> {
  try {
    for (const value of values) yield value;
  } finally {
    closed();
  }
}
const failing = (failAt: unknown) => (payload: unknown) => {
  if (payload === failAt) throw boom;
  return (payload as number) * 10;
};

on(schema.getSubscriptionType(), {
  ticks: {
    subscribe: (_, { from }) => events([from, (from as number) + 1, (from as number) + 2]),
    resolve: (payload, { failAt }) => failing(failAt)(payload),
  },
  ticksNullable: { subscribe: () => events([1, 2, 3]), resolve: (payload, { failAt }) => failing(failAt)(payload) },
  // No resolve: each event's value is read off the payload by the default resolver (payload.tick).
  tick: { subscribe: () => events([{ tick: 1 }, { tick: 2 }, { tock: 3 }, { tick: Promise.resolve(4) }]) },
  throwing: {
    subscribe: () => {
      throw upstream;
    },
  },
  erroring: { subscribe: () => upstream },
  rejecting: { subscribe: () => Promise.reject(boom) },
  notIterable: { subscribe: () => ({ not: 'iterable' }) },
  // noSource: no subscribe function at all.
  root: { subscribe: () => events([{ n: 1 }, { n: 2 }]), resolve: (_payload, _args, _context, info) => info.rootValue },
  // A subgraph's bound subscription: the events are the values (completed without calling the resolver).
  bound: { subscribe: () => events([1, 'two', 3]), resolve: eventIsValue },
  recovering: {
    subscribe: () =>
      (async function* () {
        try {
          yield 'first';
        } catch (error) {
          yield `recovered from ${(error as Error).message}`;
        }
      })(),
    resolve: (payload) => payload,
  },
});

const testContext: GraphQLContext = { principal: null, requestId: 'test-request', logger: console as unknown as FastifyBaseLogger };

function leaf(source: string): LeafFieldOperation {
  const operation = LeafFieldOperation.of(schema, parse(source));
  expect(operation, source).toBeInstanceOf(LeafFieldOperation);
  return operation!;
}

/** A result as it goes over the wire (key order included), plus what JSON drops: the errors' classes and originals. */
function wire(result: ExecutionResult) {
  return {
    json: JSON.stringify(result),
    errors: result.errors?.map((error) => ({
      isGraphQLError: error instanceof GraphQLError,
      originalClass: error.originalError?.constructor.name,
      originalMessage: error.originalError?.message,
    })),
  };
}

async function executeBoth(source: string, variables: Record<string, unknown> = {}) {
  const ours = await leaf(source).execute(testContext, variables);
  const theirs = await execute({ schema, document: parse(source), variableValues: variables, contextValue: testContext });
  expect(wire(ours)).toEqual(wire(theirs));
  expect(JSON.parse(JSON.stringify(ours))).toEqual(JSON.parse(JSON.stringify(theirs)));
  return { ours, theirs };
}

type Settled = { result: ExecutionResult | AsyncIterableIterator<ExecutionResult> } | { rejected: unknown };
async function settle(run: () => Promise<ExecutionResult | AsyncIterableIterator<ExecutionResult>>): Promise<Settled> {
  try {
    return { result: await run() };
  } catch (error) {
    return { rejected: error };
  }
}

/** One engine's subscription stream (the test fails when it answers a single result instead). */
async function streamOf(engine: 'ours' | 'graphql-js', source: string): Promise<AsyncIterableIterator<ExecutionResult>> {
  const stream =
    engine === 'ours'
      ? await leaf(source).subscribe(testContext, {})
      : await subscribe({ schema, document: parse(source), contextValue: testContext });
  if (!isStream(stream)) throw new Error(`${engine}: expected a stream, got ${JSON.stringify(stream)}`);
  return stream;
}

async function subscribeBoth(source: string, variables: Record<string, unknown> = {}) {
  const ours = await settle(() => leaf(source).subscribe(testContext, variables));
  const theirs = await settle(() => subscribe({ schema, document: parse(source), variableValues: variables, contextValue: testContext }));
  return { ours, theirs };
}

function isStream(value: ExecutionResult | AsyncIterableIterator<ExecutionResult>): value is AsyncIterableIterator<ExecutionResult> {
  return Symbol.asyncIterator in value;
}

async function drain(stream: ExecutionResult | AsyncIterableIterator<ExecutionResult>) {
  expect(isStream(stream)).toBe(true);
  const results: ReturnType<typeof wire>[] = [];
  for await (const result of stream as AsyncIterableIterator<ExecutionResult>) results.push(wire(result));
  return results;
}

/** Both engines' event streams for the same subscription, consumed to the end. */
async function streamBoth(source: string, variables: Record<string, unknown> = {}) {
  const { ours, theirs } = await subscribeBoth(source, variables);
  if (!('result' in ours) || !('result' in theirs)) throw new Error('expected both to subscribe');
  const ourEvents = await drain(ours.result);
  const theirEvents = await drain(theirs.result);
  expect(ourEvents).toEqual(theirEvents);
  return ourEvents;
}

/** Both engines' single result for a subscription that fails before streaming. */
async function subscriptionErrorBoth(source: string, variables: Record<string, unknown> = {}) {
  const { ours, theirs } = await subscribeBoth(source, variables);
  if (!('result' in ours) || !('result' in theirs)) throw new Error('expected both to resolve');
  expect(isStream(ours.result)).toBe(false);
  expect(isStream(theirs.result)).toBe(false);
  const [ourResult, theirResult] = [ours.result as ExecutionResult, theirs.result as ExecutionResult];
  expect(wire(ourResult)).toEqual(wire(theirResult));
  expect(ourResult).not.toHaveProperty('data');
  return { ours: ourResult, theirs: theirResult };
}

describe('LeafFieldOperation.of', () => {
  it.each([
    ['an object-typed field', '{ viewer { id } }'],
    ['an object-typed field without a selection', '{ viewer }'],
    ['a list field', '{ tags }'],
    ['two root fields', '{ hello maybe }'],
    ['the same field twice', '{ hello hello }'],
    ['a fragment spread', '{ ...F } fragment F on Query { hello }'],
    ['an inline fragment', '{ ... on Query { hello } }'],
    ['a field directive', '{ hello @include(if: true) }'],
    ['a field directive with a variable', 'query ($on: Boolean!) { hello @skip(if: $on) }'],
    ['an operation directive', 'query @deprecated { hello }'],
    ['several operations', 'query A { hello } query B { maybe }'],
    ['an unknown field', '{ nope }'],
    ['__typename', '{ __typename }'],
    ['an introspection field', '{ __schema { queryType { name } } }'],
  ])('is undefined for %s', (_, source) => {
    expect(LeafFieldOperation.of(schema, parse(source))).toBeUndefined();
  });

  it.each([
    ['a scalar query field', '{ hello }'],
    ['a nullable scalar query field', 'query Named { maybe }'],
    ['an enum query field', '{ color }'],
    ['an aliased field', '{ greeting: hello(name: "Ada") }'],
    ['a scalar mutation field with variables', 'mutation ($body: JSONObject!) { echo(body: $body) }'],
    ['a scalar subscription field', 'subscription ($from: Int!) { ticks(from: $from) }'],
    ['an aliased subscription field', 'subscription { t: tick }'],
  ])('is an operation for %s', (_, source) => {
    expect(LeafFieldOperation.of(schema, parse(source))).toBeInstanceOf(LeafFieldOperation);
  });
});

describe('LeafFieldOperation.execute, against graphql-js execute', () => {
  it('returns a JSON scalar built from coerced variables, with argument defaults', async () => {
    const { ours } = await executeBoth('mutation ($body: JSONObject!) { echo(body: $body) }', { body: { a: [1, { b: 'c' }] } });
    expect(ours).toEqual({ data: { echo: { received: { a: [1, { b: 'c' }] }, times: 1, list: [1, 'two', { three: 3 }], nothing: null } } });
  });

  it('returns a String under its alias, with literal and default arguments', async () => {
    expect((await executeBoth('{ greeting: hello(name: "Ada") }')).ours).toEqual({ data: { greeting: 'Hello, Ada' } });
    expect((await executeBoth('{ hello }')).ours).toEqual({ data: { hello: 'Hello, world' } });
    expect((await executeBoth('query ($name: String) { hello(name: $name) }', {})).ours).toEqual({ data: { hello: 'Hello, world' } });
    expect((await executeBoth('query ($name: String) { hello(name: $name) }', { name: null })).ours).toEqual({ data: { hello: 'Hello, null' } });
  });

  it('serializes enums and Ints, and reports values their type cannot represent', async () => {
    expect((await executeBoth('{ color }')).ours).toEqual({ data: { color: 'GREEN' } });
    const badEnum = await executeBoth('{ badColor }');
    expect(badEnum.ours.data).toEqual({ badColor: null });
    expect(badEnum.ours.errors![0]!.message).toMatch(/cannot represent value/);
    const badInt = await executeBoth('{ c: count }');
    expect(badInt.ours.data).toEqual({ c: null });
    expect(badInt.ours.errors![0]!.path).toEqual(['c']);
  });

  it('reports a scalar that serializes to null as an error, as graphql-js does', async () => {
    const loose = schema.getType('Loose') as GraphQLScalarType;
    const serialize = loose.serialize;
    loose.serialize = (value) => (value === 'nothing' ? null : value);
    try {
      const { ours } = await executeBoth('{ loose }');
      expect(ours.data).toEqual({ loose: null });
      expect(ours.errors![0]!.message).toBe('Expected `Loose.serialize("nothing")` to return non-nullable value, returned: null');
    } finally {
      loose.serialize = serialize;
    }
  });

  it('passes the resolver the same arguments, context and resolve info', async () => {
    const { ours } = await executeBoth('query Seen($n: Int, $color: Color) { s: seen(n: $n, color: $color) }', { n: 3, color: 'RED' });
    expect(ours.data!.s).toMatchObject({ args: { n: 3, color: 'RED' }, sameContext: true, fieldName: 'seen', path: { key: 's', typename: 'Query' } });
    await executeBoth('{ seen }');
  });

  it('locates a thrown error at the field, keeping it as originalError: data null for a non-null field', async () => {
    const { ours, theirs } = await executeBoth('{ f: failing }');
    expect(ours).toMatchObject({ data: null, errors: [{ message: 'boom', path: ['f'], locations: [{ line: 1, column: 3 }] }] });
    expect(ours.errors![0]!.originalError).toBe(boom);
    expect(theirs.errors![0]!.originalError).toBe(boom);
  });

  it('locates a thrown error at the field: { key: null } for a nullable field', async () => {
    const { ours } = await executeBoth('{ failingNullable }');
    expect(ours).toMatchObject({ data: { failingNullable: null }, errors: [{ message: 'boom', path: ['failingNullable'] }] });
    expect(ours.errors![0]!.originalError).toBe(boom);
  });

  it('treats a returned Error like a thrown one', async () => {
    const { ours } = await executeBoth('{ returnsError }');
    expect(ours.data).toBeNull();
    expect(ours.errors![0]!.originalError).toBe(upstream);
  });

  it('reports null for a non-null field, and passes null through for a nullable one', async () => {
    const { ours } = await executeBoth('{ missing }');
    expect(ours).toMatchObject({ data: null, errors: [{ message: 'Cannot return null for non-nullable field Query.missing.', path: ['missing'] }] });
    expect((await executeBoth('{ missingNullable }')).ours).toEqual({ data: { missingNullable: null } });
    expect((await executeBoth('{ maybe }')).ours).toEqual({ data: { maybe: null } });
  });

  it('locates a rejected promise like a thrown error', async () => {
    const { ours, theirs } = await executeBoth('{ rejected }');
    expect(ours).toMatchObject({ data: null, errors: [{ message: 'upstream failed', path: ['rejected'] }] });
    expect(ours.errors![0]!.originalError).toBe(upstream);
    expect(theirs.errors![0]!.originalError).toBe(upstream);
  });

  it('answers variable coercion errors with { errors } and no data', async () => {
    const cases: [string, Record<string, unknown>][] = [
      ['mutation ($body: JSONObject!) { echo(body: $body) }', {}],
      ['mutation ($body: JSONObject!) { echo(body: $body) }', { body: null }],
      ['query ($n: Int!) { double(n: $n) }', { n: 'abc' }],
      ['query ($n: Int!) { double(n: $n) }', { n: 1.5 }],
      ['query ($n: Int!, $c: Color) { double(n: $n) }', { n: 'abc', c: 'BLUE' }],
    ];
    for (const [source, variables] of cases) {
      const { ours } = await executeBoth(source, variables);
      expect(ours).not.toHaveProperty('data');
      expect(ours.errors!.length).toBeGreaterThan(0);
    }
  });

  it('makes an argument that cannot be computed a field error', async () => {
    // Not caught by variable coercion: a nullable variable with a default, explicitly null, in a non-null argument;
    // and (the document is not validated at execution) a missing required argument.
    const { ours } = await executeBoth('query ($n: Int = 1) { double(n: $n) }', { n: null });
    expect(ours).toMatchObject({ data: null, errors: [{ path: ['double'] }] });
    expect((await executeBoth('query ($n: Int = 1) { doubleNullable(n: $n) }', { n: null })).ours.data).toEqual({ doubleNullable: null });
    expect((await executeBoth('{ double }')).ours.errors![0]!.message).toBe('Argument "n" of required type "Int!" was not provided.');
    expect((await executeBoth('query ($n: Int = 1) { double(n: $n) }', {})).ours).toEqual({ data: { double: 2 } });
  });
});

describe('LeafFieldOperation.subscribe, against graphql-js subscribe', () => {
  it('maps each event through the field resolver and serializes it, in order', async () => {
    closed.mockClear();
    const results = await streamBoth('subscription ($from: Int!) { ticks(from: $from) }', { from: 4 });
    expect(results.map((result) => JSON.parse(result.json))).toEqual([{ data: { ticks: 40 } }, { data: { ticks: 50 } }, { data: { ticks: 60 } }]);
    expect(closed).toHaveBeenCalledTimes(2);
  });

  it('completes the events of a bound subscription (the event is the value) as graphql-js does, errors included', async () => {
    const results = await streamBoth('subscription { bound }');
    expect(results.map((result) => JSON.parse(result.json))).toEqual([
      { data: { bound: 1 } },
      { errors: [{ message: 'Int cannot represent non-integer value: "two"', locations: [{ line: 1, column: 16 }], path: ['bound'] }], data: null },
      { data: { bound: 3 } },
    ]);
  });

  it('reads events with the default resolver, under an alias, awaiting promised values', async () => {
    const results = await streamBoth('subscription { t: tick }');
    expect(results.map((result) => JSON.parse(result.json))).toEqual([{ data: { t: 1 } }, { data: { t: 2 } }, { data: { t: null } }, { data: { t: 4 } }]);
  });

  it("makes a resolver's error that event's result, and the stream goes on", async () => {
    const results = await streamBoth('subscription ($from: Int!, $failAt: Int) { ticks(from: $from, failAt: $failAt) }', { from: 1, failAt: 2 });
    expect(results.map((result) => JSON.parse(result.json))).toEqual([
      { data: { ticks: 10 } },
      { errors: [{ message: 'boom', locations: [{ line: 1, column: 44 }], path: ['ticks'] }], data: null },
      { data: { ticks: 30 } },
    ]);
    expect(results[1]!.errors).toEqual([{ isGraphQLError: true, originalClass: 'Error', originalMessage: 'boom' }]);
    const nullable = await streamBoth('subscription { ticksNullable(failAt: 3) }');
    expect(JSON.parse(nullable[2]!.json)).toMatchObject({ data: { ticksNullable: null } });
  });

  it('gives the resolver each event as its root value', async () => {
    const results = await streamBoth('subscription { root }');
    expect(results.map((result) => JSON.parse(result.json))).toEqual([{ data: { root: { n: 1 } } }, { data: { root: { n: 2 } } }]);
  });

  it('answers an event source that throws, rejects or returns an Error with { errors }', async () => {
    const thrown = await subscriptionErrorBoth('subscription { throwing }');
    expect(thrown.ours.errors![0]).toMatchObject({ message: 'upstream failed', path: ['throwing'] });
    expect(thrown.ours.errors![0]!.originalError).toBe(upstream);
    expect(thrown.theirs.errors![0]!.originalError).toBe(upstream);
    expect((await subscriptionErrorBoth('subscription { erroring }')).ours.errors![0]!.originalError).toBe(upstream);
    expect((await subscriptionErrorBoth('subscription { rejecting }')).ours.errors![0]!.originalError).toBe(boom);
  });

  it('answers variable coercion errors with { errors }', async () => {
    await subscriptionErrorBoth('subscription ($from: Int!) { ticks(from: $from) }', {});
    await subscriptionErrorBoth('subscription ($from: Int!) { ticks(from: $from) }', { from: 'x' });
  });

  it('answers an argument that cannot be computed with { errors } and no data', async () => {
    const { ours } = await subscriptionErrorBoth('subscription { ticks }');
    expect(ours.errors![0]).toMatchObject({ message: 'Argument "from" of required type "Int!" was not provided.', path: ['ticks'] });
    await subscriptionErrorBoth('subscription ($from: Int = 1) { ticks(from: $from) }', { from: null });
  });

  it('rejects, as graphql-js does, when the event source is not async iterable or there is none', async () => {
    for (const source of ['subscription { notIterable }', 'subscription { noSource }']) {
      const { ours, theirs } = await subscribeBoth(source);
      expect('rejected' in theirs, source).toBe(true);
      expect('rejected' in ours, source).toBe(true);
      const [ourError, theirError] = [(ours as { rejected: Error }).rejected, (theirs as { rejected: Error }).rejected];
      expect(ourError.constructor).toBe(theirError.constructor);
      expect(ourError.message).toBe(theirError.message);
    }
  });

  it("calls the source's return() at once when the consumer returns while a next() is pending", async () => {
    for (const engine of ['ours', 'graphql-js'] as const) {
      // A source whose next() never settles until it is returned (an idle upstream stream).
      let settle: ((result: IteratorResult<unknown>) => void) | undefined;
      let done = false;
      const returned = vi.fn();
      const source: AsyncIterableIterator<unknown> = {
        [Symbol.asyncIterator]: () => source,
        next: () =>
          done
            ? Promise.resolve({ done: true, value: undefined })
            : new Promise((resolve) => {
                settle = resolve;
              }),
        return: async () => {
          returned();
          done = true;
          settle?.({ done: true, value: undefined });
          return { done: true, value: 'closed' };
        },
      };
      const field = schema.getSubscriptionType()!.getFields().stalled!;
      field.subscribe = () => source;
      const stream = await streamOf(engine, 'subscription { stalled }');
      const pending = stream.next();
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(settle, engine).toBeDefined();
      await expect(stream.return!()).resolves.toEqual({ done: true, value: 'closed' });
      expect(returned, engine).toHaveBeenCalledTimes(1);
      await expect(pending).resolves.toEqual({ done: true, value: undefined });
      await expect(stream.next()).resolves.toMatchObject({ done: true });
    }
  });

  it('hands throw() to the source, whose next event is its result', async () => {
    for (const engine of ['ours', 'graphql-js'] as const) {
      const stream = await streamOf(engine, 'subscription { recovering }');
      expect(await stream.next()).toEqual({ done: false, value: { data: { recovering: 'first' } } });
      // The source catches the error thrown into it and yields once more: that event is the result of throw().
      const recovered = await stream.throw!(new Error('stop'));
      expect(JSON.parse(JSON.stringify(recovered))).toEqual({ done: false, value: { data: { recovering: 'recovered from stop' } } });
      expect(await stream.next()).toEqual({ done: true, value: undefined });
    }
  });

  it('closes a source without throw() on throw(), ignoring its failure to close, and rejects with the error thrown in', async () => {
    for (const engine of ['ours', 'graphql-js'] as const) {
      const returned = vi.fn();
      const source: AsyncIterator<unknown> & AsyncIterable<unknown> = {
        [Symbol.asyncIterator]: () => source,
        next: async () => ({ done: false, value: { stalled: 1 } }),
        return: async () => {
          returned();
          throw new Error('cannot close');
        },
      };
      schema.getSubscriptionType()!.getFields().stalled!.subscribe = () => source;
      const stream = await streamOf(engine, 'subscription { stalled }');
      expect(await stream.next()).toEqual({ done: false, value: { data: { stalled: 1 } } });
      const stop = new Error('stop');
      await expect(stream.throw!(stop)).rejects.toBe(stop);
      expect(returned, engine).toHaveBeenCalledTimes(1);
    }
  });
});
