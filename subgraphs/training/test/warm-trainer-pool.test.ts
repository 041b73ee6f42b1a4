import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_MODEL_DIR, OperationCancelledError, type WorkerTrainingJob } from '../../../model-runtime/index.js';
import { WarmTrainerPool } from '../trainer/warm-trainer-pool.js';

/** Warm training threads: reused across jobs; a cancelled job's thread is terminated and a fresh one warms up. */
const pool = new WarmTrainerPool(DEFAULT_MODEL_DIR, 1);
afterAll(() => pool.close());

const sft = (steps: number): WorkerTrainingJob => ({
  kind: 'sft',
  examples: [{ messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }] }],
  config: { steps, batch_size: 1 },
});

describe('WarmTrainerPool', () => {
  it('trains consecutive jobs on one warm thread, and replaces the thread of a cancelled job', async () => {
    const first = await pool.train(sft(1));
    expect(JSON.parse(first['adapter_config.json'].toString())).toMatchObject({ peft_type: 'LORA', trellis_step: 1 });
    const steps: number[] = [];
    await pool.train(sft(2), (metrics) => steps.push(metrics.step));
    expect(steps).toEqual([1, 2]);
    expect(pool.threads).toEqual({ idle: 1, busy: 0, started: 1 });

    // A job the runtime rejects (no assistant turn) leaves the thread usable.
    await expect(pool.train({ kind: 'sft', examples: [{ messages: [{ role: 'user', content: 'x' }] }] })).rejects.toThrow(/no assistant message/);
    expect(pool.threads).toEqual({ idle: 1, busy: 0, started: 1 });

    const controller = new AbortController();
    const long = pool.train(sft(100_000), () => controller.abort(), controller.signal);
    await expect(long).rejects.toBeInstanceOf(OperationCancelledError);
    // Terminated, and a replacement is warming for the next job.
    expect(pool.threads).toEqual({ idle: 1, busy: 0, started: 2 });
    await pool.train(sft(1));
    expect(pool.threads).toEqual({ idle: 1, busy: 0, started: 2 });
  });
});
