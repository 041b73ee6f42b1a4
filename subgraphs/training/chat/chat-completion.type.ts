import { Field, Float, Int, ObjectType } from 'type-graphql';

/**
 * The OpenAI chat completion the training graph answers with, typed. The REST route writes it back in OpenAI's
 * JSON (snake_case, the same keys in the same order; rest-adapter/routes/training-shapes.ts).
 */
@ObjectType('TrainingTopLogprob', { description: 'An alternative token at a position, with its logprob' })
export class TrainingTopLogprob {
  @Field(() => String, { description: 'The token as text' }) token!: string;
  @Field(() => Float, { description: "The raw model's log probability of the token" }) logprob!: number;
  @Field(() => [Int], { description: 'The UTF-8 bytes of the token' }) bytes!: number[];
}

@ObjectType('TrainingTokenLogprob', { description: 'A sampled token with its logprob and the most likely alternatives' })
export class TrainingTokenLogprob {
  @Field(() => String, { description: 'The token as text' }) token!: string;
  @Field(() => Float, { description: "The raw model's log probability of the token (what RL trains against)" }) logprob!: number;
  @Field(() => [Int], { description: 'The UTF-8 bytes of the token' }) bytes!: number[];
  @Field(() => [TrainingTopLogprob], { description: 'The most likely tokens at this position (top_logprobs of the request)' }) topLogprobs!: TrainingTopLogprob[];
}

@ObjectType('TrainingChoiceLogprobs', { description: 'The logprobs of a choice' })
export class TrainingChoiceLogprobs {
  @Field(() => [TrainingTokenLogprob], { description: 'One entry per sampled token' }) content!: TrainingTokenLogprob[];
}

@ObjectType('TrainingChatCompletionMessage', { description: "The model's answer" })
export class TrainingChatCompletionMessage {
  @Field(() => String, { description: 'Always assistant' }) role!: string;
  @Field(() => String, { nullable: true, description: 'The generated text' }) content!: string | null;
}

@ObjectType('TrainingChatCompletionChoice', { description: 'One generated answer' })
export class TrainingChatCompletionChoice {
  @Field(() => Int, { description: 'The position of the choice (0 … n-1)' }) index!: number;
  @Field(() => TrainingChatCompletionMessage, { description: 'The generated message' }) message!: TrainingChatCompletionMessage;
  @Field(() => String, { description: 'Why generation stopped: stop (the model ended or a stop sequence) or length' }) finishReason!: string;
  @Field(() => TrainingChoiceLogprobs, { nullable: true, description: 'The logprobs of the sampled tokens, when the request asked for them' })
  logprobs!: TrainingChoiceLogprobs | null;
}

@ObjectType('TrainingCompletionUsage', { description: 'Tokens the completion consumed' })
export class TrainingCompletionUsage {
  @Field(() => Int, { description: 'Tokens of the prompt' }) promptTokens!: number;
  @Field(() => Int, { description: 'Tokens generated' }) completionTokens!: number;
  @Field(() => Int, { description: 'Prompt and generated tokens' }) totalTokens!: number;
}

@ObjectType('TrainingChatCompletion', { description: 'An OpenAI chat completion from a base model or a checkpoint. Also at POST /training/v1/chat/completions' })
export class TrainingChatCompletion {
  @Field(() => String, { description: 'The completion id (chatcmpl-…)' }) id!: string;
  @Field(() => String, { description: 'Always chat.completion' }) object!: string;
  @Field(() => Int, { description: 'When it was created, in Unix seconds' }) created!: number;
  @Field(() => String, { description: 'The model or checkpoint that answered, as requested' }) model!: string;
  @Field(() => [TrainingChatCompletionChoice], { description: 'The generated answers' }) choices!: TrainingChatCompletionChoice[];
  @Field(() => TrainingCompletionUsage, { description: 'Tokens consumed' }) usage!: TrainingCompletionUsage;
}

type Json = Record<string, any>;

/** The service's OpenAI JSON as the typed object. */
export function toTrainingChatCompletion(completion: Json): TrainingChatCompletion {
  const top = (entry: Json) => Object.assign(new TrainingTopLogprob(), { token: entry.token, logprob: entry.logprob, bytes: entry.bytes });
  return Object.assign(new TrainingChatCompletion(), {
    id: completion.id,
    object: completion.object,
    created: completion.created,
    model: completion.model,
    choices: (completion.choices as Json[]).map((choice) =>
      Object.assign(new TrainingChatCompletionChoice(), {
        index: choice.index,
        message: Object.assign(new TrainingChatCompletionMessage(), choice.message),
        finishReason: choice.finish_reason,
        logprobs: choice.logprobs
          ? Object.assign(new TrainingChoiceLogprobs(), {
              content: (choice.logprobs.content as Json[]).map((entry) =>
                Object.assign(new TrainingTokenLogprob(), { ...top(entry), topLogprobs: (entry.top_logprobs as Json[]).map(top) }),
              ),
            })
          : null,
      }),
    ),
    usage: Object.assign(new TrainingCompletionUsage(), {
      promptTokens: completion.usage.prompt_tokens,
      completionTokens: completion.usage.completion_tokens,
      totalTokens: completion.usage.total_tokens,
    }),
  });
}
