// Decorators are applied when this module's callers load, which may be before anything else imported the polyfill.
import 'reflect-metadata';
import type { Static, TSchema } from '@sinclair/typebox';
import { GraphQLScalarType } from 'graphql';
import { Field, Float, InputType, Int, registerEnumType, type ClassType } from 'type-graphql';
import { ValidationFailedError, type ValidationIssue } from '../errors.js';
import { GraphQLSafeInt } from 'graphql-scalars';
import { JSONObjectScalar, JSONScalar } from './scalars.js';

/**
 * One definition per request contract. A REST route's body is a TypeBox schema in the wire's own naming (Weave and
 * ART send snake_case, OpenAI too); the GraphQL mutation that implements the route takes a typed input generated
 * from that same schema: every declared property becomes a camelCase field with its nullability, enum, list and
 * nested input type, and its description. Nothing is written twice, so the two cannot drift:
 *
 * - `argType()` is the type of a resolver argument, `@Arg(name, () => input.argType())` (the value arrives as GraphQL
 *   coerced it, not converted into class instances); `type` is the generated input class itself;
 * - `fromWire(body)` turns a (validated) REST body into the GraphQL variable value (the REST adapter's job);
 * - `handle(input, at, run)` turns the coerced GraphQL input back into the wire shape and hands it to `run` (the
 *   domain service, which validates it against the same schema as for REST), reporting any validation issue at
 *   the GraphQL path (`["input","opName"]` rather than the wire's `["body","start","op_name"]`).
 *
 * Schema annotations the generator reads (plain JSON-schema keywords are ignored by Ajv's non-strict mode):
 * - `graphqlName` on every object schema with properties, and on every string enum: the GraphQL type's name;
 * - `graphqlField` on a property schema: its GraphQL field name when camelCase of the wire key is not wanted;
 * - `graphqlExtra` on an object schema: a JSONObject field that carries the wire keys the schema does not declare
 *   (free-form by nature, e.g. backend-specific sampling parameters), so `additionalProperties` survive the trip;
 * - `graphqlValues` on a string enum: a description per wire value (`{asc: 'Smallest first'}`);
 * - `graphqlInternalNames: true` on a string enum: inside the server its values are the GraphQL names (`USER`, not
 *   `user`; `toWire` still answers wire values), so coercing an already coerced value again is harmless. Needed for
 *   enums in a subscription's arguments run by graphql-jit, which re-coerces the coerced variables for every event.
 * Free-form data (objects without properties, `Type.Unknown()`) become `JSONObject` / `JSON` fields; a required
 * `Type.Unknown()` is a nullable `JSON` field, since null is one of the values it admits on the wire.
 */
export interface TypedInput<S extends TSchema> {
  readonly type: ClassType;
  /**
   * The type of a resolver argument of this input: `@Arg('input', () => X.argType(), …)`, or
   * `() => [X.argType()]` for a list. The schema declares the argument as this input type, and the resolver receives
   * the value exactly as GraphQL coerced it (plain objects), without type-graphql's conversion into class instances:
   * see `describingTypedInputs`.
   */
  argType(): ClassType;
  readonly schema: S;
  fromWire(value: Static<S>): Record<string, unknown>;
  /** The wire value of a coerced GraphQL input (not validated: the domain service validates what it is given). */
  toWire(input: unknown): Static<S>;
  /**
   * Runs `run` on the wire value of `input`; validation issues located under `at.wire` (where this input sits in
   * the wire request, e.g. `["body","start"]`) are re-reported under the GraphQL argument `at.arg`.
   */
  handle<T>(input: unknown, at: InputLocation, run: (wire: Static<S>) => Promise<T>): Promise<T>;
  /** A wire location under `at.wire` as the GraphQL path under `at.arg`; other locations are returned as they are. */
  locate(loc: ValidationIssue['loc'], at: InputLocation): ValidationIssue['loc'];
  /**
   * The inverse of `locate`: a GraphQL path under `at.arg` as the wire location under `at.wire` (for REST routes,
   * whose clients expect issues where their body has the value); other paths are returned as they are.
   */
  wireLocation(loc: ValidationIssue['loc'], at: InputLocation): ValidationIssue['loc'];
}

/** Where an input sits: the GraphQL path of the argument (`["input"]`, `["items", 3]`) and its wire location. */
export interface InputLocation {
  arg: string | (string | number)[];
  wire: (string | number)[];
}

type Plan =
  | { kind: 'scalar'; graphql: GraphQLScalarType | typeof String | typeof Boolean }
  | { kind: 'enum'; name: string; toGraphQL: Map<unknown, string>; fromGraphQL: Map<string, unknown>; type: object }
  | { kind: 'list'; of: Plan; itemNullable: boolean }
  | { kind: 'object'; name: string; fields: FieldPlan[]; extra?: string; type?: ClassType };

interface FieldPlan {
  wire: string;
  graphql: string;
  plan: Plan;
  /** Required and not nullable on the wire: `T!` in GraphQL. */
  nonNull: boolean;
  /**
   * Optional but not nullable on the wire: a nullable GraphQL field whose explicit null means "not given" (GraphQL
   * clients pass null for an unset variable), so it is left out of the wire value rather than refused there.
   */
  nullMeansAbsent: boolean;
}

const INT32 = { min: -(2 ** 31), max: 2 ** 31 - 1 };

/** Generated input types and enums by GraphQL name: one class per name, whichever schema names it first. */
const objectTypes = new Map<string, { schema: TSchema; plan: Extract<Plan, { kind: 'object' }> }>();
const enumTypes = new Map<string, Extract<Plan, { kind: 'enum' }>>();

export function typedInput<S extends TSchema>(schema: S): TypedInput<S> {
  const plan = planOf(schema, 'root');
  if (plan.kind !== 'object') throw new Error('typedInput: the root schema must be an object with graphqlName');
  const type = classOf(plan);
  return {
    type,
    argType: () => (describing > 0 ? type : (PASS_THROUGH as unknown as ClassType)),
    schema,
    fromWire: (value) => toGraphQLValue(plan, value) as Record<string, unknown>,
    toWire: (input) => toWireValue(plan, input) as Static<S>,
    handle: async (input, at, run) => {
      try {
        return await run(toWireValue(plan, input) as Static<S>);
      } catch (error) {
        if (!(error instanceof ValidationFailedError) || !error.issues) throw error;
        // The service's own message (what is wrong, in words) is kept; only the locations change.
        throw new ValidationFailedError(error.issues.map((issue) => ({ ...issue, loc: graphqlLocation(plan, issue.loc, at) })), error.message);
      }
    },
    locate: (loc, at) => graphqlLocation(plan, loc, at),
    wireLocation: (loc, at) => wireLocation(plan, loc, at),
  };
}

/**
 * Typed-input arguments without type-graphql's instance conversion. type-graphql converts every input-object
 * argument into instances of its input classes before calling a resolver, field by field and item by item, and
 * re-derives each nested input type as it goes (a linear search over every input type of the process per nested
 * object): on a 1,000-call `upsertCalls` batch that cost more than GraphQL's own coercion of the variables. Resolvers
 * of typed inputs only ever map the value back to the wire shape (`toWire`, `handle`), so instances buy nothing.
 *
 * type-graphql asks an argument's type function twice over: while a schema is built (to declare the argument) and
 * on every call (to pick the class to convert into). `argType()` answers the input class while a schema is being
 * described — `describingTypedInputs(build)`, which `defineSubgraph` wraps around building and printing its type
 * schema — and otherwise a scalar that type-graphql passes through as it is. The counter covers overlapping builds
 * (several platforms in one test process); a call served while some build is under way gets instances, as before.
 */
let describing = 0;

/** A scalar type-graphql hands over unconverted; never part of a schema (a schema built outside the scope shows it). */
const PASS_THROUGH = new GraphQLScalarType({
  name: 'TypedInputArgumentOutsideDescribingTypedInputs',
  description: 'Never in a schema: build type-graphql schemas inside describingTypedInputs',
  serialize: () => {
    throw new Error('typed-input pass-through marker used as a schema type; build schemas inside describingTypedInputs');
  },
});

/** Runs `build` (type-graphql's buildSchema, and every use of its lazily built types) with typed-input arguments declared as their input classes. */
export async function describingTypedInputs<T>(build: () => Promise<T> | T): Promise<T> {
  describing++;
  try {
    return await build();
  } finally {
    describing--;
  }
}

/** A GraphQL field name for a wire key: `op_name` → `opName`, `$expr` → `expr`. */
export function camelCase(key: string): string {
  return key.replace(/^\$/, '').replace(/_([a-z0-9])/g, (_match, letter: string) => letter.toUpperCase());
}

function planOf(schema: TSchema, where: string): Plan {
  const nonNull = withoutNull(schema);
  if (nonNull.enum || (nonNull.anyOf && nonNull.anyOf.every((member: TSchema) => 'const' in member))) {
    return enumPlan(nonNull, where);
  }
  if (nonNull.anyOf || nonNull.oneOf || nonNull.allOf || nonNull.if) return { kind: 'scalar', graphql: JSONScalar };
  switch (nonNull.type) {
    case 'string':
      return { kind: 'scalar', graphql: String };
    case 'boolean':
      return { kind: 'scalar', graphql: Boolean };
    case 'number':
      return { kind: 'scalar', graphql: Float };
    case 'integer': {
      const lowest = nonNull.minimum ?? nonNull.exclusiveMinimum ?? -Infinity;
      const highest = nonNull.maximum ?? nonNull.exclusiveMaximum ?? Infinity;
      const within32 = lowest >= INT32.min && highest <= INT32.max;
      // Integers beyond 32 bits (epoch milliseconds, steps) as JavaScript-safe integers, still numbers on arrival.
      return { kind: 'scalar', graphql: within32 ? Int : GraphQLSafeInt };
    }
    case 'array':
      return { kind: 'list', of: planOf(nonNull.items ?? {}, `${where}[]`), itemNullable: isNullable(nonNull.items ?? {}) };
    case 'object':
      return objectPlan(nonNull, where);
    default:
      return { kind: 'scalar', graphql: JSONScalar };
  }
}

function objectPlan(schema: TSchema, where: string): Plan {
  const properties = (schema.properties ?? {}) as Record<string, TSchema>;
  if (Object.keys(properties).length === 0) return { kind: 'scalar', graphql: JSONObjectScalar };
  const name = schema.graphqlName as string | undefined;
  if (!name) throw new Error(`typedInput: the object schema at ${where} needs a graphqlName`);
  const known = objectTypes.get(name);
  if (known) {
    if (known.schema.properties !== schema.properties) throw new Error(`typedInput: two different schemas are both named ${name}`);
    return known.plan;
  }
  const plan: Extract<Plan, { kind: 'object' }> = { kind: 'object', name, fields: [], extra: schema.graphqlExtra };
  objectTypes.set(name, { schema, plan });
  const required = new Set<string>(schema.required ?? []);
  for (const [wire, property] of Object.entries(properties)) {
    plan.fields.push({
      wire,
      graphql: (property.graphqlField as string | undefined) ?? camelCase(wire),
      plan: planOf(property, `${name}.${wire}`),
      nonNull: required.has(wire) && !isNullable(property),
      nullMeansAbsent: !required.has(wire) && !isNullable(property),
    });
  }
  return plan;
}

function enumPlan(schema: TSchema, where: string): Extract<Plan, { kind: 'enum' }> {
  const name = schema.graphqlName as string | undefined;
  if (!name) throw new Error(`typedInput: the enum at ${where} needs a graphqlName`);
  const values: unknown[] = schema.enum ?? schema.anyOf.map((member: TSchema) => member.const);
  const known = enumTypes.get(name);
  if (known) {
    if ([...known.toGraphQL.keys()].join() !== values.join()) throw new Error(`typedInput: two different enums are both named ${name}`);
    return known;
  }
  const toGraphQL = new Map(values.map((value) => [value, enumName(value)]));
  const internal = (value: unknown) => (schema.graphqlInternalNames === true ? enumName(value) : value);
  const type = Object.fromEntries(values.map((value) => [enumName(value), internal(value)]));
  const valueDescriptions = (schema.graphqlValues ?? {}) as Record<string, string>;
  registerEnumType(type, {
    name,
    description: schema.description,
    valuesConfig: Object.fromEntries(values.filter((value) => valueDescriptions[String(value)]).map((value) => [enumName(value), { description: valueDescriptions[String(value)] }])),
  });
  const plan = { kind: 'enum' as const, name, toGraphQL, fromGraphQL: new Map([...toGraphQL].map(([wire, graphql]) => [graphql, wire])), type };
  enumTypes.set(name, plan);
  return plan;
}

/** GraphQL enum values are names: `asc` → `ASC`, `in_progress` → `IN_PROGRESS`. */
function enumName(value: unknown): string {
  const name = String(value).replace(/[^A-Za-z0-9_]/g, '_').toUpperCase();
  return /^[A-Z_]/.test(name) ? name : `_${name}`;
}

function withoutNull(schema: TSchema): TSchema {
  if (schema.anyOf) {
    const members = (schema.anyOf as TSchema[]).filter((member) => member.type !== 'null');
    if (members.length === 1) return { ...members[0], description: schema.description ?? members[0].description };
    if (members.length !== schema.anyOf.length) return { ...schema, anyOf: members };
  }
  return schema;
}

function isNullable(schema: TSchema): boolean {
  return schema.nullable === true || (Array.isArray(schema.anyOf) && schema.anyOf.some((member: TSchema) => member.type === 'null')) || admitsAnything(schema);
}

/** `Type.Unknown()` / `Type.Any()`: no constraint at all, so null is one of its values (a call output, a score value). */
function admitsAnything(schema: TSchema): boolean {
  return ['type', 'anyOf', 'oneOf', 'allOf', 'enum', 'const', 'not', '$ref', 'if'].every((keyword) => !(keyword in schema));
}

/** Every input class generated from a schema (for the contract test that resolvers declare them with `argType()`). */
const generatedClasses = new WeakSet<object>();

/** Whether `value` is an input class generated by `typedInput` (which resolvers must not name in `@Arg` directly). */
export function isTypedInputClass(value: unknown): boolean {
  return typeof value === 'function' && generatedClasses.has(value);
}

/** The type-graphql class of an object plan, created once (decorators applied by hand: the class is generated). */
function classOf(plan: Extract<Plan, { kind: 'object' }>): ClassType {
  if (plan.type) return plan.type;
  const schema = objectTypes.get(plan.name)!.schema;
  const generated = { [plan.name]: class {} }[plan.name] as ClassType;
  generatedClasses.add(generated);
  plan.type = generated;
  // Nested input classes must exist (their decorators applied) before the schema is built, not when it asks.
  for (const field of plan.fields) {
    const nested = innermost(field.plan);
    if (nested.kind === 'object') classOf(nested);
  }
  for (const field of plan.fields) {
    const property = (schema.properties as Record<string, TSchema>)[field.wire];
    Field(() => graphqlTypeOf(field.plan), {
      nullable: field.nonNull ? false : field.plan.kind === 'list' && field.plan.itemNullable ? 'itemsAndList' : true,
      description: property.description,
    })(generated.prototype, field.graphql);
  }
  if (plan.extra) {
    Field(() => JSONObjectScalar, {
      nullable: true,
      description: 'Further parameters not declared above, passed on as they are',
    })(generated.prototype, plan.extra);
  }
  InputType(plan.name, { description: schema.description })(generated);
  return generated;
}

function innermost(plan: Plan): Plan {
  return plan.kind === 'list' ? innermost(plan.of) : plan;
}

function graphqlTypeOf(plan: Plan): any {
  switch (plan.kind) {
    case 'scalar':
      return plan.graphql;
    case 'enum':
      return plan.type;
    case 'list':
      return [graphqlTypeOf(plan.of)];
    case 'object':
      return classOf(plan);
  }
}

function toGraphQLValue(plan: Plan, value: unknown): unknown {
  if (value === null || value === undefined) return value;
  switch (plan.kind) {
    case 'scalar':
      return value;
    case 'enum':
      return plan.toGraphQL.get(value) ?? value;
    case 'list':
      return Array.isArray(value) ? value.map((item) => toGraphQLValue(plan.of, item)) : value;
    case 'object': {
      if (typeof value !== 'object' || Array.isArray(value)) return value;
      const source = value as Record<string, unknown>;
      const result: Record<string, unknown> = {};
      for (const field of plan.fields) {
        if (source[field.wire] !== undefined) result[field.graphql] = toGraphQLValue(field.plan, source[field.wire]);
      }
      if (plan.extra) {
        const declared = new Set(plan.fields.map((field) => field.wire));
        const extra = Object.entries(source).filter(([key]) => !declared.has(key));
        if (extra.length > 0) result[plan.extra] = Object.fromEntries(extra);
      }
      return result;
    }
  }
}

function toWireValue(plan: Plan, value: unknown): unknown {
  if (value === null || value === undefined) return value;
  switch (plan.kind) {
    case 'scalar':
      return value;
    case 'enum':
      return plan.fromGraphQL.has(value as string) ? plan.fromGraphQL.get(value as string) : value;
    case 'list':
      return Array.isArray(value) ? value.map((item) => toWireValue(plan.of, item)) : value;
    case 'object': {
      const source = value as Record<string, unknown>;
      const result: Record<string, unknown> = {};
      if (plan.extra && source[plan.extra] && typeof source[plan.extra] === 'object') {
        Object.assign(result, source[plan.extra]);
      }
      // An omitted field is missing; an explicit null stays null where the wire admits null (the wire schema decides),
      // and is left out where the wire field is optional but not nullable (null is how GraphQL says "not given").
      for (const field of plan.fields) {
        const given = source[field.graphql];
        if (given === undefined || (given === null && field.nullMeansAbsent)) continue;
        result[field.wire] = toWireValue(field.plan, given);
      }
      return result;
    }
  }
}

/** A validation issue's wire location (`["body","start","op_name"]`) as a GraphQL path (`["input","opName"]`). */
function graphqlLocation(plan: Plan, loc: ValidationIssue['loc'], at: InputLocation): ValidationIssue['loc'] {
  if (!at.wire.every((part, index) => loc[index] === part)) return loc;
  return translatePath(plan, loc.slice(at.wire.length), typeof at.arg === 'string' ? [at.arg] : [...at.arg], 'wire', 'graphql');
}

/** A GraphQL path under `at.arg` (`["input","opName"]`) as the wire location under `at.wire` (`["body","start","op_name"]`). */
function wireLocation(plan: Plan, loc: ValidationIssue['loc'], at: InputLocation): ValidationIssue['loc'] {
  const arg = typeof at.arg === 'string' ? [at.arg] : at.arg;
  if (!arg.every((part, index) => loc[index] === part)) return loc;
  return translatePath(plan, loc.slice(arg.length), [...at.wire], 'graphql', 'wire');
}

/** Appends `parts` (field names in the `from` naming, list indexes) to `path` in the `to` naming, following `plan`. */
function translatePath(plan: Plan, parts: ValidationIssue['loc'], path: ValidationIssue['loc'], from: 'wire' | 'graphql', to: 'wire' | 'graphql'): ValidationIssue['loc'] {
  let current: Plan | undefined = plan;
  for (const part of parts) {
    if (current?.kind === 'object') {
      const field: FieldPlan | undefined = current.fields.find((candidate) => candidate[from] === part);
      path.push(field ? field[to] : part);
      current = field?.plan;
    } else if (current?.kind === 'list') {
      path.push(part);
      current = current.of;
    } else {
      path.push(part);
      current = undefined;
    }
  }
  return path;
}
