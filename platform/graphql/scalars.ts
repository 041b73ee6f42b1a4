import { GraphQLDateTime, GraphQLJSON, GraphQLJSONObject, GraphQLBigInt } from 'graphql-scalars';

/**
 * The scalars subgraphs share. Each subgraph that uses one declares it (federation merges same-named scalars),
 * so they are exported from one place to keep the definitions identical.
 */
export const JSONScalar = GraphQLJSON;
export const JSONObjectScalar = GraphQLJSONObject;
export const DateTimeScalar = GraphQLDateTime;
/** Epoch milliseconds and other integers beyond 2^31 (GraphQL's Int is 32-bit). */
export const BigIntScalar = GraphQLBigInt;
