// Runs a Weave TypeScript SDK evaluation (Evaluation.evaluate over a Dataset, two scorers) against
// WF_TRACE_SERVER_URL for each model named on the command line, in its own process (the SDK may process.exit).
// Prints one JSON line: each model's summary as the SDK computed it.
import * as weave from 'weave';

const [project, ...models] = process.argv.slice(2);
const LONG_PROMPT =
  'You are a patient geography tutor. A student writes a long message, as real prompts are, explaining at length what they read, ' +
  'what their teacher said and what they remember from a trip, and finally asks which city is the capital of Australia and why so ' +
  'many people believe it is Sydney. Their source: https://example.org/atlas/oceania/australia/capital-cities-and-their-history-since-federation-1901';
const client = await weave.init(project);

const dataset = new weave.Dataset({
  id: 'capitals',
  rows: [
    { question: 'Capital of France?', expected: 'Paris' },
    { question: 'Capital of Japan?', expected: 'Tokyo' },
    { question: 'Capital of Peru?', expected: 'Lima' },
    // As long as real prompts are, with an unbroken URL: the compare table must wrap it, not paint it over the outputs.
    { question: LONG_PROMPT, expected: 'Canberra' },
  ],
});
const exactMatch = weave.op(function exact_match({ modelOutput, datasetRow }) {
  return { correct: modelOutput === datasetRow.expected };
});
const closeness = weave.op(function closeness({ modelOutput, datasetRow }) {
  const a = String(modelOutput ?? '');
  const b = String(datasetRow.expected);
  let same = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] === b[i]) same++;
  return Math.round((same / Math.max(a.length, b.length)) * 100) / 100;
});
const evaluation = new weave.Evaluation({ name: "capitals", dataset, scorers: [exactMatch, closeness] });

const ANSWERS = {
  geo_v1: { 'Capital of France?': 'Paris', 'Capital of Japan?': 'Kyoto', 'Capital of Peru?': 'Lima', [LONG_PROMPT]: 'Sydney' },
  geo_v2: { 'Capital of France?': 'Paris', 'Capital of Japan?': 'Tokyo', 'Capital of Peru?': 'Lina', [LONG_PROMPT]: 'Canberra' },
  geo_v3: {
    'Capital of France?': 'Paris',
    'Capital of Japan?': 'The capital of Japan is Tokyo',
    'Capital of Peru?': 'Lima',
    [LONG_PROMPT]: 'The capital of Australia is Canberra, not Sydney',
  },
};
const summaries = {};
for (const name of models) {
  const answers = ANSWERS[name] ?? {};
  const model = weave.op(async ({ datasetRow }) => answers[datasetRow.question] ?? '?', { name });
  summaries[name] = await evaluation.evaluate({ model, maxConcurrency: 1 });
}
await client.waitForBatchProcessing();
console.log(JSON.stringify({ summaries }));
