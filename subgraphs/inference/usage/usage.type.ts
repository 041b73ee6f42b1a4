import { Field, Float, Int, ObjectType, registerEnumType } from 'type-graphql';
import { USAGE_GROUP_BY, type UsageBucketRow, type UsageGroupBy } from './usage.store.js';

export const UsageGroupByEnum = Object.fromEntries(USAGE_GROUP_BY.map((value) => [value, value])) as { [K in UsageGroupBy]: K };
registerEnumType(UsageGroupByEnum, { name: 'InferenceUsageGroupBy', description: 'Dimensions inference usage can be grouped by' });

@ObjectType('InferenceUsageBucket', { description: 'Inference usage summed over one group (all requests when ungrouped)' })
export class InferenceUsageBucket {
  @Field(() => String, { nullable: true }) project!: string | null;
  @Field(() => String, { nullable: true }) model!: string | null;
  @Field(() => Int, { nullable: true, description: 'HTTP status answered' }) status!: number | null;
  @Field(() => String, { nullable: true }) apiKeyId!: string | null;
  @Field(() => Date, { nullable: true, description: 'Start of the DAY or HOUR bucket' }) period!: Date | null;
  @Field(() => Int) requests!: number;
  @Field(() => Int, { description: 'Requests answered with an error status' }) errors!: number;
  @Field(() => Int) promptTokens!: number;
  @Field(() => Int) completionTokens!: number;
  @Field(() => Int) totalTokens!: number;
  @Field(() => Float) latencyMeanMs!: number;
  @Field(() => Float) latencyP50Ms!: number;
  @Field(() => Float) latencyP99Ms!: number;
}

@ObjectType('InferenceUsageRecord', { description: 'One chat completion request and what happened to it' })
export class InferenceUsageRecord {
  @Field(() => String) id!: string;
  @Field(() => Date) createdAt!: Date;
  @Field(() => String) entity!: string;
  @Field(() => String) project!: string;
  @Field(() => String, { description: 'The model id the request named' }) model!: string;
  @Field(() => String, { nullable: true }) backend!: string | null;
  @Field(() => String, { nullable: true, description: 'Deployment that answered (last one tried)' }) deployment!: string | null;
  @Field(() => String, { nullable: true }) apiKeyId!: string | null;
  @Field(() => String, { nullable: true, description: 'The request\'s `user` parameter' }) endUser!: string | null;
  @Field(() => Boolean) stream!: boolean;
  @Field(() => Int, { description: 'HTTP status answered (499: the client disconnected)' }) status!: number;
  @Field(() => String, { nullable: true }) errorCode!: string | null;
  @Field(() => String, { nullable: true }) errorMessage!: string | null;
  @Field(() => Int) promptTokens!: number;
  @Field(() => Int) completionTokens!: number;
  @Field(() => Int) totalTokens!: number;
  @Field(() => Float) latencyMs!: number;
  @Field(() => Float, { nullable: true, description: 'Time to the first chunk (streams)' }) firstTokenMs!: number | null;
  @Field(() => Int, { description: 'Deployments tried' }) attempts!: number;
  @Field(() => String, { nullable: true }) requestId!: string | null;
}

export function toUsageBucket(row: UsageBucketRow): InferenceUsageBucket {
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
  });
}
