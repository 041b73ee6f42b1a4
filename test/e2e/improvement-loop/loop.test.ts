import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../support/platform.js';

/**
 * The whole model-improvement loop of issue #31 on one platform, every step through the public graph or REST and
 * every inference call through the real `openai` package — no database access, no platform internals:
 *
 *   traced chat calls to the embedded model (`trellis-tiny`) through POST /inference/v1/chat/completions, each
 *   carrying its true answer in OpenAI's `metadata` (the traced call's `inputs.metadata.expected`)
 *   → a monitor (built-in EQUALS check of the answer against that field) scores them as they are recorded
 *   → the calls it scored 0 become a Weave Dataset whose `expected` column is the true answer (the mapping):
 *     v0 the calls to learn from, v1 appending held-out calls (other words)
 *   → an SFT job from v0 succeeds
 *   → evaluateDataset (run by the platform) on v1's held-out rows: the checkpoint beats the base model by a margin
 *   → the checkpoint is promoted to `production`
 *   → a call to `trellis/loop/letter-counter:production` is answered by the checkpoint, traced, and scored 1 by the
 *     same monitor that scored the base model's answer to the same question 0.
 *
 * The task is the one model-runtime/test/demonstrations.test.ts teaches the shipped model: the letter count of a
 * word spelled as a word ('How many letters are in "kamo"? Answer in words.' → "four"). The base model answers it
 * with noise (exact match 0), while it counts in digits right, so a few digit questions are traced too: the monitor
 * scores those 1 and they stay out of the dataset. Sizes (48 training words, 60 steps at 1e-2, 16 held-out words)
 * are about the smallest that measured a robust gain with the model runtime alone (held-out exact match 0 → 0.56–0.71
 * over trainer seeds and sizes; 40 to 96 training words and 60 to 140 steps all gave ≥ 0.56, while lr 2e-2 diverged);
 * here the platform measures 0 → 0.625. Everything is seeded and generation greedy. On the shared 2-core machine the
 * loop took 17.5 s (the file 30 s with imports and start-up) at load 2.5, 33 s (49 s) at load 6; most of it training.
 */
const ENTITY = 'trellis';
const PROJECT = 'loop';
const PROJECT_ID = `${ENTITY}/${PROJECT}`;
const MONITOR = 'letters-correct';
const MODEL = 'letter-counter';
const DATASET = 'letter-count-failures';
const PRODUCTION = `${PROJECT_ID}/${MODEL}:production`;
const TRAINING_WORDS = 48;
const HELD_OUT_WORDS = 16;
const DIGIT_QUESTIONS = 6;
/** Greedy and short: the answers are one word. */
const ASK = { temperature: 0, seed: 0, max_tokens: 4 } as const;
/** What the held-out evaluation must show at least: exact match of the checkpoint minus the base model's. */
const REQUIRED_GAIN = 0.3;

let platform: TestPlatform;
let openai: OpenAI;

beforeAll(async () => {
  platform = await startTestPlatform();
  await graphql(`mutation { createProject(entity: "${ENTITY}", name: "${PROJECT}") { fullName } }`);
  // The project's calls are traced because the client names it (OpenAI-Project), as any OpenAI client can.
  openai = new OpenAI({ apiKey: platform.adminKey, baseURL: `${platform.url}/inference/v1`, maxRetries: 0, project: PROJECT_ID });
}, 120_000);
afterAll(async () => {
  await platform?.close();
});

describe('from traces to a better model', () => {
  it('scores traced calls, fine-tunes on the failures, shows a held-out gain, promotes, and serves and scores the next call', async () => {
    const started = Date.now();
    const seconds = () => ((Date.now() - started) / 1000).toFixed(1);
    const training = words(TRAINING_WORDS, 1);
    const heldOut = words(HELD_OUT_WORDS, 2, new Set(training));

    // 1. A monitor on the project's chat completions (of the base model and of whatever `production` will be):
    //    1 when the answer equals the true answer the caller sent as metadata.
    const monitor = await graphql<{ createMonitor: { id: string; ref: string } }>(
      `mutation($input: MonitorInput!) { createMonitor(entity: "${ENTITY}", project: "${PROJECT}", input: $input) { id ref } }`,
      {
        input: {
          name: MONITOR,
          samplingRate: 1,
          filter: { opNames: ['inference.chat.completions/trellis-tiny', `inference.chat.completions/${PRODUCTION}`] },
          scorer: { kind: 'EQUALS', field: 'output.message.content', otherField: 'inputs.metadata.expected' },
        },
      },
    );

    // 2. Production traffic on the base model, traced into the project.
    const questions = [
      ...training.map((word) => ({ word, split: 'train', ...inWords(word) })),
      ...heldOut.map((word) => ({ word, split: 'held-out', ...inWords(word) })),
      ...words(DIGIT_QUESTIONS, 3, new Set([...training, ...heldOut])).map((word) => ({ word, split: 'digits', ...inDigits(word) })),
    ];
    for (const question of questions) {
      const completion = await openai.chat.completions.create({
        model: 'trellis-tiny',
        messages: [{ role: 'user', content: question.prompt }],
        metadata: { expected: question.expected, split: question.split },
        ...ASK,
      });
      expect(completion.choices[0]!.message.content).toEqual(expect.any(String));
    }

    // 3. The monitor scores every one of them as tracing records it.
    const scored = await eventually(async () => {
      const stats = await monitorStats(monitor.createMonitor.id);
      return stats.scored + stats.failed >= questions.length ? stats : undefined;
    }, 30_000);
    expect(scored).toMatchObject({ scored: questions.length, failed: 0 });
    const scores = await monitorScores();
    expect(scores.size).toBe(questions.length);
    const calls = await tracedCalls();
    const byPrompt = new Map(calls.map((call) => [promptOf(call), call]));
    const scoreOf = (prompt: string) => scores.get(byPrompt.get(prompt)!.id);
    // The base model cannot answer in words, but counts in digits.
    expect(questions.filter((q) => q.split !== 'digits').map((q) => scoreOf(q.prompt))).toEqual(questions.filter((q) => q.split !== 'digits').map(() => 0));
    expect(questions.filter((q) => q.split === 'digits').some((q) => scoreOf(q.prompt) === 1)).toBe(true);
    console.log(`loop: ${questions.length} traced calls scored by the monitor, mean ${scored.meanScore!.toFixed(3)} (${seconds()} s)`);

    // 4. The calls it scored 0 become a Weave Dataset, with the true answer as `expected` (the call's metadata):
    //    v0 holds the training words' calls; v1 appends the held-out words' calls, which the fine-tune never sees.
    const failing = (split: string) => calls.filter((call) => scores.get(call.id) === 0 && call.inputs.metadata.split === split).map((call) => call.id);
    const columns = [
      { name: 'question', source: 'inputs.messages' },
      { name: 'answer', source: 'output.message.content' },
      { name: 'score', source: `feedback.${MONITOR}` },
      { name: 'expected', source: 'inputs.metadata.expected' },
    ];
    const trainSet = await fromCalls({ callIds: failing('train'), columns });
    expect(trainSet).toMatchObject({ version: 'v0', rowCount: TRAINING_WORDS });
    const withHeldOut = await fromCalls({ callIds: failing('held-out'), columns, append: true });
    expect(withHeldOut).toMatchObject({ version: 'v1', rowCount: TRAINING_WORDS + HELD_OUT_WORDS });

    // 5. Fine-tune trellis-tiny on the training dataset (exported as chat JSONL by the same mutation).
    const model = await platform.rest('POST', '/training/v1/preview/models', { project: PROJECT, name: MODEL, base_model: 'trellis-tiny' });
    expect(model.status).toBe(200);
    const job = await graphql<{ createSftTrainingJobFromDataset: { id: string } }>(
      `mutation($input: SftTrainingJobFromDatasetInput!) { createSftTrainingJobFromDataset(input: $input) { id status } }`,
      {
        input: {
          modelId: model.body.id,
          dataset: { project: PROJECT, dataset: DATASET, version: trainSet.version, promptColumn: 'question', completionColumn: 'expected' },
          config: { batchSize: 8, learningRate: 0.01, extra: { steps: 60, seed: 1 } },
        },
      },
    );
    const ended = await eventually(async () => {
      const read = await platform.rest('GET', `/training/v1/preview/training-jobs/${job.createSftTrainingJobFromDataset.id}`);
      return ['SUCCEEDED', 'FAILED', 'CANCELLED'].includes(read.body.status) ? read.body : undefined;
    }, 120_000);
    expect(ended).toMatchObject({ status: 'SUCCEEDED' });
    const checkpoints = await platform.rest('GET', `/training/v1/preview/models/${model.body.id}/checkpoints`);
    const step = checkpoints.body.data.at(-1).step as number;
    const checkpoint = `wandb-artifact:///${PROJECT_ID}/${MODEL}:step${step}`;
    console.log(`loop: SFT job SUCCEEDED, checkpoint step ${step} (${seconds()} s)`);
    // Evaluated at once: evaluateDataset checks a wandb-artifact:/// ref with training, which serves it from now on.

    // 6. The platform evaluates base model and checkpoint on the held-out split (the rows v1 added) with the
    //    monitor's check — the answer equals the row's `expected` — and the comparison shows the gain.
    const evaluation = await graphql<{ evaluateDataset: { rowStart: number; rowEnd: number; runs: { id: string; model: string }[] } }>(
      `mutation($input: DatasetEvaluationInput!) {
        evaluateDataset(entity: "${ENTITY}", project: "${PROJECT}", input: $input) { rowStart rowEnd runs { id model } }
      }`,
      {
        input: {
          dataset: `${DATASET}:${withHeldOut.version}`,
          split: { startRow: trainSet.rowCount },
          models: ['trellis-tiny', checkpoint],
          scorers: [{ name: 'exact', scorer: { kind: 'EQUALS' } }],
          promptColumn: 'question',
          expectedColumn: 'expected',
          maxTokens: ASK.max_tokens,
          seed: ASK.seed,
        },
      },
    );
    expect(evaluation.evaluateDataset).toMatchObject({ rowStart: TRAINING_WORDS, rowEnd: TRAINING_WORDS + HELD_OUT_WORDS });
    const runIds = evaluation.evaluateDataset.runs.map((run) => run.id);
    await eventually(async () => {
      const summaries = await Promise.all(runIds.map(evaluationRun));
      return summaries.every((run) => run.status !== 'RUNNING') ? summaries : undefined;
    }, 60_000);
    const comparison = await graphql(
      `query($runs: [String!]!) { project(entity: "${ENTITY}", name: "${PROJECT}") { evaluationRunsComparison(runs: $runs) {
        runs { id model status exampleCount scores { scorer metric mean count } }
        examples { inputs results { output } }
      } } }`,
      { runs: runIds },
    );
    const [baseRun, tunedRun] = comparison.project.evaluationRunsComparison.runs as EvaluationRun[];
    expect(baseRun).toMatchObject({ model: 'trellis-tiny', status: 'SUCCESS', exampleCount: HELD_OUT_WORDS });
    expect(tunedRun).toMatchObject({ model: checkpoint, status: 'SUCCESS', exampleCount: HELD_OUT_WORDS });
    // Its examples are the dataset's held-out rows: the base model's traced answer, scored 0 by the monitor, and
    // the true answer from the call's metadata as `expected`.
    const examples = comparison.project.evaluationRunsComparison.examples as { inputs: Record<string, unknown>; results: { output: string }[] }[];
    expect(examples.map((example) => example.inputs.expected).sort()).toEqual(heldOut.map((word) => inWords(word).expected).sort());
    for (const example of examples) expect(example.inputs).toMatchObject({ score: 0, answer: expect.not.stringMatching(`^${example.inputs.expected}$`) });
    const exact = (run: EvaluationRun) => run.scores.find((score) => score.scorer === 'exact')!;
    expect([exact(baseRun!).count, exact(tunedRun!).count]).toEqual([HELD_OUT_WORDS, HELD_OUT_WORDS]);
    console.log(`loop: held-out exact match (${HELD_OUT_WORDS} words, evaluateDataset): trellis-tiny ${exact(baseRun!).mean.toFixed(3)} → ${MODEL}:step${step} ${exact(tunedRun!).mean.toFixed(3)} (${seconds()} s)`);
    expect(exact(tunedRun!).mean - exact(baseRun!).mean).toBeGreaterThanOrEqual(REQUIRED_GAIN);

    // 7. Promote the checkpoint; clients calling `<model>:production` now get it, with no change on their side.
    const promoted = await graphql<{ promoteTrainingCheckpoint: { aliases: string[] } }>(
      `mutation($id: ID!, $step: Int!) { promoteTrainingCheckpoint(modelId: $id, input: { step: $step, alias: "production" }) { aliases } }`,
      { id: model.body.id, step },
    );
    expect(promoted.promoteTrainingCheckpoint.aliases).toContain('production');

    // 8. The next production call: a held-out question the base model got wrong (scored 0 above), now answered
    //    by the checkpoint — the same text training chat's `:step<N>` gives — and scored 1 by the same monitor.
    const retried = heldOut.map(inWords).find((q) => q.expected === 'four')!;
    const fromCheckpoint = await platform.rest('POST', '/training/v1/chat/completions', { model: checkpoint, messages: [{ role: 'user', content: retried.prompt }], ...ASK });
    const served = await eventually(async () => {
      try {
        return await openai.chat.completions.create({ model: PRODUCTION, messages: [{ role: 'user', content: retried.prompt }], metadata: { expected: retried.expected }, ...ASK });
      } catch (error) {
        // The registry moves its alias from the promotion's event, moments after the mutation answered.
        if (error instanceof OpenAI.NotFoundError) return undefined;
        throw error;
      }
    }, 20_000);
    expect(served.choices[0]!.message.content).toBe(fromCheckpoint.body.choices[0].message.content);
    expect(served.choices[0]!.message.content!.trim()).toBe('four');
    expect(scoreOf(retried.prompt)).toBe(0);
    const rescored = await eventually(async () => {
      const latest = (await tracedCalls()).find((call) => call.op_name === `inference.chat.completions/${PRODUCTION}`);
      const score = latest && (await monitorScores()).get(latest.id);
      return latest === undefined || score === undefined ? undefined : { call: latest, score };
    }, 30_000);
    expect(rescored.call.output.message.content).toBe(served.choices[0]!.message.content);
    expect(rescored.score).toBe(1);
    expect(await monitorStats(monitor.createMonitor.id)).toMatchObject({ scored: questions.length + 1, failed: 0 });
    console.log(`loop: ${PRODUCTION} answered "${served.choices[0]!.message.content}" (base model: "${byPrompt.get(retried.prompt)!.output.message.content}"), scored 1; whole loop ${seconds()} s`);
  }, 240_000);
});

// —— the task ——

const NUMBER_WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];
const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

/** `count` distinct random words of 2 to 9 letters, from a seeded generator (mulberry32), none of `exclude`. */
function words(count: number, seed: number, exclude = new Set<string>()): string[] {
  let state = seed;
  const random = () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const seen = new Set(exclude);
  const out: string[] = [];
  while (out.length < count) {
    const length = 2 + Math.floor(random() * 8);
    let word = '';
    for (let i = 0; i < length; i++) word += LETTERS[Math.floor(random() * LETTERS.length)];
    if (seen.has(word)) continue;
    seen.add(word);
    out.push(word);
  }
  return out;
}

const inWords = (word: string) => ({ prompt: `How many letters are in "${word}"? Answer in words.`, expected: NUMBER_WORDS[word.length]! });
const inDigits = (word: string) => ({ prompt: `How many letters are in "${word}"?`, expected: String(word.length) });

// —— the public API ——

async function graphql<T = any>(query: string, variables?: Record<string, unknown>): Promise<T> {
  const { body } = await platform.graphql<T>(query, variables);
  if (body.errors?.length) throw new Error(`GraphQL error: ${JSON.stringify(body.errors)}`);
  return body.data as T;
}

async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`condition not met in ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

interface MonitorStats {
  scored: number;
  skippedBySampling: number;
  failed: number;
  meanScore: number | null;
}

async function monitorStats(id: string): Promise<MonitorStats> {
  const data = await graphql(`{ project(entity: "${ENTITY}", name: "${PROJECT}") { monitors { id stats { scored skippedBySampling failed meanScore } } } }`);
  return data.project.monitors.find((monitor: { id: string }) => monitor.id === id).stats;
}

/** The monitor's scores by call id, read back as Weave feedback (`wandb.runnable.<monitor>`) over REST. */
async function monitorScores(): Promise<Map<string, number>> {
  const response = await platform.rest('POST', '/traces/feedback/query', {
    project_id: PROJECT_ID,
    query: { $expr: { $eq: [{ $getField: 'feedback_type' }, { $literal: `wandb.runnable.${MONITOR}` }] } },
    limit: 10_000,
  });
  expect(response.status).toBe(200);
  return new Map(response.body.result.map((feedback: { weave_ref: string; payload: { output: number } }) => [feedback.weave_ref.split('/').at(-1)!, feedback.payload.output]));
}

interface TracedCall {
  id: string;
  op_name: string;
  inputs: { messages: { role: string; content: string }[]; metadata: Record<string, string> };
  output: { message: { content: string } };
}

/** The project's traced calls, oldest first, as the Weave SDKs query them (`/calls/stream_query`, JSON lines). */
async function tracedCalls(): Promise<TracedCall[]> {
  const response = await platform.fetch('/traces/calls/stream_query', {
    method: 'POST',
    headers: { authorization: `Bearer ${platform.adminKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ project_id: PROJECT_ID, sort_by: [{ field: 'started_at', direction: 'asc' }] }),
  });
  expect(response.status).toBe(200);
  return (await response.text()).split('\n').filter(Boolean).map((line) => JSON.parse(line));
}

const promptOf = (call: TracedCall) => call.inputs.messages.at(-1)!.content;

async function fromCalls(input: { callIds: string[]; columns: { name: string; source: string }[]; append?: boolean }): Promise<{ version: string; rowCount: number }> {
  const data = await graphql(`mutation($input: DatasetFromCallsInput!) { createDatasetFromCalls(input: $input) { version rowCount } }`, {
    input: { projectId: PROJECT_ID, dataset: DATASET, ...input },
  });
  return data.createDatasetFromCalls;
}

interface EvaluationRun {
  id: string;
  model: string;
  status: string;
  exampleCount: number;
  scores: { scorer: string; metric: string; mean: number; count: number }[];
}

async function evaluationRun(id: string): Promise<{ status: string; exception: string | null }> {
  const data = await graphql(`query($id: String!) { project(entity: "${ENTITY}", name: "${PROJECT}") { evaluationRunSummary(id: $id) { status exception } } }`, { id });
  return data.project.evaluationRunSummary;
}
