import { Field, Float, Int, ObjectType, registerEnumType } from 'type-graphql';
import { connectionTypes } from '../../../platform/graphql/connection.js';
import { USAGE_GROUP_BY, type UsageBucketRow, type UsageGroupBy } from './usage.store.js';

const COST = 'US dollars for the prompt and completion tokens at the model price table (the catalog model’s pricing, TRELLIS_MODEL_PRICES_FILE, or the shipped list prices)';

export const UsageGroupByEnum = Object.fromEntries(USAGE_GROUP_BY.map((value) => [value, value])) as { [K in UsageGroupBy]: K };
registerEnumType(UsageGroupByEnum, { name: 'InferenceUsageGroupBy', description: 'Dimensions inference usage can be grouped by' });

@ObjectType('InferenceUsageBucket', { description: 'Inference usage summed over one group (all requests when ungrouped)' })
export class InferenceUsageBucket {
  @Field(() => String, { nullable: true, description: 'The project (grouped by PROJECT)' }) project!: string | null;
  @Field(() => String, { nullable: true, description: 'The model id requests named (grouped by MODEL)' }) model!: string | null;
  @Field(() => Int, { nullable: true, description: 'HTTP status answered (grouped by STATUS)' }) status!: number | null;
  @Field(() => String, { nullable: true, description: 'The API key the requests came with (grouped by API_KEY)' }) apiKeyId!: string | null;
  @Field(() => Date, { nullable: true, description: 'Start of the DAY or HOUR bucket, or of the series bucket (inferenceUsageSeries)' }) period!: Date | null;
  @Field(() => Int, { description: 'Requests in the bucket' }) requests!: number;
  @Field(() => Int, { description: 'Requests answered with an error status' }) errors!: number;
  @Field(() => Int, { description: 'Prompt tokens consumed' }) promptTokens!: number;
  @Field(() => Int, { description: 'Tokens generated' }) completionTokens!: number;
  @Field(() => Int, { description: 'Prompt and completion tokens together' }) totalTokens!: number;
  @Field(() => Float, { description: 'Mean latency, in milliseconds' }) latencyMeanMs!: number;
  @Field(() => Float, { description: 'Median latency, in milliseconds' }) latencyP50Ms!: number;
  @Field(() => Float, { description: '99th percentile latency, in milliseconds' }) latencyP99Ms!: number;
  @Field(() => Float, { nullable: true, description: `${COST}; null when one of its models has no price` }) cost!: number | null;
}

@ObjectType('InferenceUsageRecord', { description: 'One chat completion request and what happened to it' })
export class InferenceUsageRecord {
  @Field(() => String, { description: 'Id of the record' }) id!: string;
  @Field(() => Date, { description: 'When the request arrived' }) createdAt!: Date;
  @Field(() => String, { description: 'Team the usage is attributed to' }) entity!: string;
  @Field(() => String, { description: 'Project the usage is attributed to' }) project!: string;
  @Field(() => String, { description: 'The model id the request named' }) model!: string;
  @Field(() => String, { nullable: true, description: 'What served it: openai-compatible, embedded or training; null when no model was resolved' }) backend!: string | null;
  @Field(() => String, { nullable: true, description: 'Deployment that answered (last one tried)' }) deployment!: string | null;
  @Field(() => String, { nullable: true, description: 'The API key the request came with' }) apiKeyId!: string | null;
  @Field(() => String, { nullable: true, description: 'The request\'s `user` parameter' }) endUser!: string | null;
  @Field(() => Boolean, { description: 'Whether the answer was streamed' }) stream!: boolean;
  @Field(() => Int, { description: 'HTTP status answered (499: the client disconnected)' }) status!: number;
  @Field(() => String, { nullable: true, description: 'The reason of a failure (a platform reason, e.g. VALIDATION_FAILED)' }) errorCode!: string | null;
  @Field(() => String, { nullable: true, description: 'The message of a failure' }) errorMessage!: string | null;
  @Field(() => Int, { description: 'Prompt tokens consumed' }) promptTokens!: number;
  @Field(() => Int, { description: 'Tokens generated' }) completionTokens!: number;
  @Field(() => Int, { description: 'Prompt and completion tokens together' }) totalTokens!: number;
  @Field(() => Float, { description: 'Time to the answer (streams: to the last chunk), in milliseconds' }) latencyMs!: number;
  @Field(() => Float, { nullable: true, description: 'Time to the first chunk (streams)' }) firstTokenMs!: number | null;
  @Field(() => Int, { description: 'Deployments tried' }) attempts!: number;
  @Field(() => String, { nullable: true, description: 'The platform request id (in logs and the X-Request-Id header)' }) requestId!: string | null;
  @Field(() => Float, { nullable: true, description: `${COST}; null when the model has no price` }) cost!: number | null;
}

export const InferenceUsageRecordConnection = connectionTypes(InferenceUsageRecord, 'InferenceUsageRecord', 'inference usage record');

export function toUsageBucket(row: UsageBucketRow, cost: number | null): InferenceUsageBucket {
  return Object.assign(new InferenceUsageBucket(), {
    project: row.project ?? null,
    model: row.model ?? null,
    status: row.status ?? null,
    apiKeyId: row.api_key ?? null,
    period: row.day ?? row.hour ?? null,
    requests: row.requests,
    errors: row.errors,
    promptTokens: row.prompt_tokens,
    completionTokens: row.completion_tokens,
    totalTokens: row.total_tokens,
    latencyMeanMs: Number(row.latency_mean_ms ?? 0),
    latencyP50Ms: Number(row.latency_p50_ms ?? 0),
    latencyP99Ms: Number(row.latency_p99_ms ?? 0),
    cost,
  });
}
