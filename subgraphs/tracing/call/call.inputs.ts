import { Type } from '@sinclair/typebox';
import type { InputLocation } from '../../../platform/graphql/typed-input.js';
import { typedInput } from '../../../platform/graphql/typed-input.js';
import { QUERY_PATH } from '../query/query.inputs.js';
import { ReadArguments, typedInputPath } from '../query/read-arguments.js';
import {
  CallEndSchema,
  CallSortBySchema,
  CallStartSchema,
  CallUpdateBody,
  CallsFilterSchema,
  CompletedCallSchema,
  V2CallEndSchema,
  V2CallStartSchema,
} from './call.schemas.js';
import { CallSearchSchema } from './call-search.schemas.js';

/**
 * The GraphQL inputs of the call mutations and reads, generated from the request schemas the REST routes declare
 * (platform/graphql/typed-input.ts), so the two contracts are one.
 */
export const CallStartInput = typedInput(CallStartSchema);
export const CallEndInput = typedInput(CallEndSchema);
export const ProjectCallStartInput = typedInput(V2CallStartSchema);
export const ProjectCallEndInput = typedInput(V2CallEndSchema);
export const CompletedCallInput = typedInput(CompletedCallSchema);
export const CallUpdateInput = typedInput(CallUpdateBody);
export const CallFilterInput = typedInput(CallsFilterSchema);
export const CallSortInput = typedInput(CallSortBySchema.items);
export const CallSearchInput = typedInput(CallSearchSchema);

/** Where the wire request carries a start or an end (`{start: {...}}`, `{end: {...}}`) and where GraphQL does. */
export const AT_START: InputLocation = { arg: 'input', wire: ['body', 'start'] };
export const AT_END: InputLocation = { arg: 'input', wire: ['body', 'end'] };
export const AT_BODY: InputLocation = { arg: 'input', wire: ['body'] };

/** The arguments of Project.calls and Project.callCount, and their places in the body of /calls/query. */
export const CALLS_ARGUMENTS = new ReadArguments([
  { arg: 'query', wire: ['body', 'query'], path: QUERY_PATH },
  { arg: 'sortBy', wire: ['body', 'sort_by'] },
  { arg: 'filter', wire: ['body', 'filter'], path: typedInputPath(CallFilterInput) },
  { arg: 'columns', wire: ['body', 'columns'] },
  { arg: 'expandColumns', wire: ['body', 'expand_columns'] },
  { arg: 'search', wire: ['body', 'search'], path: typedInputPath(CallSearchInput) },
]);

/**
 * One item of an all-or-nothing batch: a start or an end. Weave's wire shape is `{mode, req: {start}|{end}}`;
 * GraphQL has no input unions, so exactly one of the two fields is given (checked by the batch's own schema once
 * the item is back in wire shape).
 */
export const CallBatchItemInput = typedInput(
  Type.Object(
    {
      start: Type.Optional({ ...CallStartSchema, description: 'A call that starts (leave `end` out)' }),
      end: Type.Optional({ ...CallEndSchema, description: 'A call that ends (leave `start` out)' }),
    },
    { graphqlName: 'CallBatchItemInput', description: 'One item of a call batch: exactly one of `start` and `end`' },
  ),
);
