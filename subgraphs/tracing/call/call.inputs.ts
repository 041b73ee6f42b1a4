import { Type } from '@sinclair/typebox';
import { typedInput } from '../../../platform/graphql/typed-input.js';
import { CallEndSchema, CallStartSchema, CallUpdateBody, CompletedCallSchema, V2CallEndSchema, V2CallStartSchema } from './call.schemas.js';

/**
 * The GraphQL inputs of the call mutations, generated from the request schemas the REST routes declare
 * (platform/graphql/typed-input.ts), so the two contracts are one.
 */
export const CallStartInput = typedInput(CallStartSchema);
export const CallEndInput = typedInput(CallEndSchema);
export const ProjectCallStartInput = typedInput(V2CallStartSchema);
export const ProjectCallEndInput = typedInput(V2CallEndSchema);
export const CompletedCallInput = typedInput(CompletedCallSchema);
export const CallUpdateInput = typedInput(CallUpdateBody);

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
