/** Exact-match evaluation of a model (optionally with an adapter) on task examples, greedy decoding. */
import { generateSync } from './generate.js';
import type { LoraAdapter } from './lora-adapter.js';
import type { LlamaModel } from './model.js';
import type { TaskExample } from './synthetic-corpus.js';

export interface TaskAccuracy {
  task: string;
  correct: number;
  total: number;
  accuracy: number;
}

export function exactMatchAccuracy(model: LlamaModel, adapter: LoraAdapter | null, examples: readonly TaskExample[], maxTokens = 48): TaskAccuracy[] {
  const byTask = new Map<string, { correct: number; total: number }>();
  for (const ex of examples) {
    const out = generateSync(model, { messages: ex.messages, adapter, temperature: 0, max_tokens: maxTokens, seed: 0 });
    const stat = byTask.get(ex.task) ?? { correct: 0, total: 0 };
    stat.total++;
    if (out.choices[0].text.trim() === ex.answer) stat.correct++;
    byTask.set(ex.task, stat);
  }
  return [...byTask].map(([task, s]) => ({ task, ...s, accuracy: s.correct / s.total }));
}
