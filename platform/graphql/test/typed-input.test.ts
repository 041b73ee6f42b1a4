import { Type } from '@sinclair/typebox';
import { execute, parse, printSchema, GraphQLSchema, printType, type GraphQLInputObjectType } from 'graphql';
import { buildSchema, Arg, Mutation, Query, Resolver } from 'type-graphql';
import { describe, expect, it } from 'vitest';
import { ValidationFailedError } from '../../errors.js';
import { validateOrThrow } from '../../validation.js';
import { describingTypedInputs, typedInput } from '../typed-input.js';

const Sort = Type.Object(
  {
    field: Type.String({ description: 'The field' }),
    direction: Type.Unsafe<'asc' | 'desc'>({ type: 'string', enum: ['asc', 'desc'], graphqlName: 'TestSortDirection', graphqlValues: { asc: 'Smallest first' } }),
  },
  { graphqlName: 'TestSortInput', description: 'An order' },
);
const Body = Type.Object(
  {
    project_id: Type.String({ pattern: '^[^/]+/[^/]+$', description: 'The project' }),
    max_tokens: Type.Optional(Type.Integer({ minimum: 1, maximum: 4096, description: 'A bound' })),
    big_step: Type.Optional(Type.Integer({ description: 'Unbounded' })),
    sort_by: Type.Optional(Type.Array(Sort)),
    inputs: Type.Object({}, { additionalProperties: true, description: 'Free-form' }),
    output: Type.Optional(Type.Unknown({ description: 'Anything' })),
    value: Type.Unknown({ description: 'Required, but null is one of its values' }),
  },
  { graphqlName: 'TestBodyInput', description: 'A request', graphqlExtra: 'extraBody', additionalProperties: true },
);
const BodyInput = typedInput(Body);

@Resolver()
class TestResolver {
  @Mutation(() => Boolean)
  take(@Arg('input', () => BodyInput.type) _input: unknown): boolean {
    return true;
  }
}

/** What resolvers of `argType()` arguments receive. */
const received: unknown[] = [];
@Resolver()
class PassThroughResolver {
  @Query(() => Boolean)
  ok(): boolean {
    return true;
  }

  @Mutation(() => Boolean)
  takeMany(@Arg('items', () => [BodyInput.argType()]) items: unknown[], @Arg('one', () => BodyInput.argType(), { nullable: true }) one: unknown): boolean {
    received.push(items, one);
    return true;
  }
}

describe('typed inputs generated from a request schema', () => {
  it('declares every property as a typed, described field: nullability, enums, lists, free-form JSON, safe integers', async () => {
    const schema: GraphQLSchema = await buildSchema({ resolvers: [TestResolver], validate: false, skipCheck: true });
    const printed = printType(schema.getType('TestBodyInput') as GraphQLInputObjectType);
    expect(printed).toContain('"""A request"""');
    expect(printed).toContain('projectId: String!');
    expect(printed).toContain('maxTokens: Int');
    expect(printed).toContain('bigStep: SafeInt');
    expect(printed).toContain('sortBy: [TestSortInput!]');
    expect(printed).toContain('inputs: JSONObject!');
    expect(printed).toContain('output: JSON');
    // A required Type.Unknown() admits null on the wire, so its field cannot be JSON! (a REST body's null would fail).
    expect(printed).toMatch(/value: JSON\n/);
    expect(printed).toContain('extraBody: JSONObject');
    expect(printType(schema.getType('TestSortDirection')!)).toContain('ASC');
    expect(printType(schema.getType('TestSortDirection')!)).toContain('"""Smallest first"""\n  ASC');
  });

  it('maps wire bodies onto GraphQL values and back, keeping free-form data and undeclared keys as they are', () => {
    const wire = { project_id: 'a/b', sort_by: [{ field: 'x', direction: 'desc' as const }], inputs: { some_key: { nested_key: 1 } }, value: 'v', top_k: 5 };
    const graphql = BodyInput.fromWire(wire);
    expect(graphql).toEqual({ projectId: 'a/b', sortBy: [{ field: 'x', direction: 'DESC' }], inputs: { some_key: { nested_key: 1 } }, value: 'v', extraBody: { top_k: 5 } });
    expect(BodyInput.toWire(graphql)).toEqual(wire);
  });

  it('reports the schema rules at GraphQL paths', async () => {
    const failure = await BodyInput.handle({ projectId: 'no-slash', maxTokens: 0, inputs: {} }, { arg: 'input', wire: ['body'] }, async (wire) =>
      validateOrThrow(Body, wire, 'body'),
    ).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ValidationFailedError);
    expect((failure as ValidationFailedError).issues!.map((issue) => issue.loc)).toEqual(
      expect.arrayContaining([
        ['input', 'projectId'],
        ['input', 'maxTokens'],
      ]),
    );
  });

  it('maps GraphQL paths back to wire locations (for REST routes), the inverse of locate', () => {
    const at = { arg: 'input', wire: ['body'] };
    for (const wire of [['body', 'project_id'], ['body', 'sort_by', 2, 'direction'], ['body', 'max_tokens'], ['body', 'top_k']]) {
      const graphql = BodyInput.locate(wire, at);
      expect(BodyInput.wireLocation(graphql, at)).toEqual(wire);
    }
    expect(BodyInput.wireLocation(['input', 'sortBy', 0, 'field'], at)).toEqual(['body', 'sort_by', 0, 'field']);
    expect(BodyInput.wireLocation(['other', 'x'], at)).toEqual(['other', 'x']);
  });

  it('refuses two different schemas under one GraphQL name', () => {
    expect(() => typedInput(Type.Object({ other: Type.String() }, { graphqlName: 'TestBodyInput' }))).toThrow(/two different schemas/);
  });

  it('hands argType() arguments to resolvers as GraphQL coerced them, declared as the input type in the schema', async () => {
    const schema = await describingTypedInputs(async () => {
      const built = await buildSchema({ resolvers: [PassThroughResolver], validate: false, skipCheck: true });
      printSchema(built); // type-graphql builds fields lazily: whatever reads them must run in the scope too
      return built;
    });
    expect(printSchema(schema)).toContain('items: [TestBodyInput!]!');
    expect(printSchema(schema)).toContain('one: TestBodyInput');
    expect(printSchema(schema)).not.toContain('TypedInputArgumentOutsideDescribingTypedInputs');
    const item = { projectId: 'a/b', sortBy: [{ field: 'x', direction: 'ASC' }], inputs: { k: 1 }, value: null };
    received.length = 0;
    const result = await execute({
      schema,
      document: parse('mutation($items: [TestBodyInput!]!, $one: TestBodyInput) { takeMany(items: $items, one: $one) }'),
      variableValues: { items: [item, item], one: item },
    });
    expect(result.errors).toBeUndefined();
    const [items, one] = received as [Record<string, unknown>[], Record<string, unknown>];
    // Enum values arrive as their internal (wire) values, as graphql-js coerces them.
    const coerced = { ...item, sortBy: [{ field: 'x', direction: 'asc' }] };
    expect(items).toEqual([coerced, coerced]);
    expect(one).toEqual(coerced);
    // Not converted into instances of the generated classes (type-graphql's conversion, skipped).
    for (const value of [items[0], one]) expect(value).not.toBeInstanceOf(BodyInput.type);
    expect(BodyInput.toWire(items[0])).toEqual({ project_id: 'a/b', sort_by: [{ field: 'x', direction: 'asc' }], inputs: { k: 1 }, value: null });
  });
});
