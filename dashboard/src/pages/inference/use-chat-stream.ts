import { useEffect, useRef, useState } from 'react';
import { useClient } from 'urql';
import { describeError, type DescribedError } from '../../client';
import {
  InferencePlaygroundCheckpointChunksDocument,
  InferencePlaygroundChunksDocument,
  type ChatCompletionRequestInput,
} from '../../graphql/generated';

export type StreamStatus = 'idle' | 'streaming' | 'done' | 'stopped' | 'error';

export interface StreamRun {
  status: StreamStatus;
  text: string;
  chunks: number;
  finishReason: string | null;
  usage: { promptTokens: number; completionTokens: number; totalTokens: number } | null;
  firstTokenMs: number | null;
  elapsedMs: number | null;
  errors: DescribedError[];
}

export const IDLE_RUN: StreamRun = { status: 'idle', text: '', chunks: 0, finishReason: null, usage: null, firstTokenMs: null, elapsedMs: null, errors: [] };

/** Checkpoints (and base models named as artifacts) are served by the training family, catalog models by inference. */
export const isCheckpoint = (model: string) => model.startsWith('wandb-artifact:///');

/** One chunk's text, finish reason and usage, from either family's chunk shape. */
interface ChunkPiece {
  text: string;
  finishReason: string | null;
  usage: StreamRun['usage'];
}

/** The training family streams OpenAI's own chunk objects (choices[].delta, snake_case usage). */
function pieceOfOpenAIChunk(chunk: Record<string, any>): ChunkPiece {
  const choice = chunk.choices?.[0];
  const usage = chunk.usage;
  return {
    text: (choice?.delta?.content ?? '') + (choice?.delta?.refusal ?? ''),
    finishReason: choice?.finish_reason ?? null,
    usage: usage ? { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens, totalTokens: usage.total_tokens } : null,
  };
}

/**
 * Streams one chat completion at a time over graphql-ws: inference's typed `chatCompletionChunks` for catalog models,
 * training's `trainingChatCompletionChunks` for checkpoints. The answer grows as chunks arrive; `stop` unsubscribes
 * (the server stops generating and records a 499). Errors are kept as the server sent them (catalogue code, message).
 */
export function useChatStream(onFinished?: (run: StreamRun) => void): { run: StreamRun; start(request: ChatCompletionRequestInput, project: string | null): void; stop(): void } {
  const client = useClient();
  const [run, setRun] = useState<StreamRun>(IDLE_RUN);
  const subscription = useRef<{ unsubscribe(): void } | null>(null);
  const finished = useRef(onFinished);
  finished.current = onFinished;

  useEffect(() => () => subscription.current?.unsubscribe(), []);

  // Tell the owner once a run ends (done, stopped or failed), with what it produced.
  const previousStatus = useRef<StreamStatus>('idle');
  useEffect(() => {
    if (previousStatus.current === 'streaming' && run.status !== 'streaming') finished.current?.(run);
    previousStatus.current = run.status;
  }, [run]);

  function stop(status: StreamStatus = 'stopped') {
    subscription.current?.unsubscribe();
    subscription.current = null;
    setRun((current) => (current.status === 'streaming' ? { ...current, status } : current));
  }

  function start(request: ChatCompletionRequestInput, project: string | null) {
    const started = performance.now();
    const onPiece = (piece: ChunkPiece) =>
      setRun((current) =>
        current.status !== 'streaming'
          ? current
          : {
              ...current,
              text: current.text + piece.text,
              chunks: current.chunks + 1,
              finishReason: piece.finishReason ?? current.finishReason,
              usage: piece.usage ?? current.usage,
              firstTokenMs: current.firstTokenMs ?? (piece.text ? performance.now() - started : null),
            },
      );
    const onResult = (result: { error?: Parameters<typeof describeError>[0]; hasNext?: boolean }, piece: ChunkPiece | null) => {
      if (result.error) {
        subscription.current?.unsubscribe();
        subscription.current = null;
        const errors = describeError(result.error);
        setRun((current) => ({ ...current, status: 'error', errors, elapsedMs: performance.now() - started }));
        return;
      }
      // urql repeats the last chunk's data with hasNext: false when the server completes the subscription.
      if (result.hasNext === false) {
        subscription.current = null;
        setRun((current) => (current.status === 'streaming' ? { ...current, status: 'done', elapsedMs: performance.now() - started } : current));
        return;
      }
      if (piece) onPiece(piece);
    };
    setRun({ ...IDLE_RUN, status: 'streaming' });
    if (isCheckpoint(request.model)) {
      subscription.current = client
        .subscription(InferencePlaygroundCheckpointChunksDocument, { request })
        .subscribe((result) => onResult(result, result.data ? pieceOfOpenAIChunk(result.data.trainingChatCompletionChunks as Record<string, any>) : null));
    } else {
      subscription.current = client.subscription(InferencePlaygroundChunksDocument, { project, request }).subscribe((result) => {
        const chunk = result.data?.chatCompletionChunks;
        const choice = chunk?.choices[0];
        onResult(result, chunk ? { text: (choice?.message.content ?? '') + (choice?.message.refusal ?? ''), finishReason: choice?.finishReason ?? null, usage: chunk.usage ?? null } : null);
      });
    }
  }

  return { run, start, stop };
}
