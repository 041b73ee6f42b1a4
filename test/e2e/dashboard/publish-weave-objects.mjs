// Publishes Weave objects with the Weave TypeScript SDK against WF_TRACE_SERVER_URL, in its own process: a Dataset
// in two versions (3 rows, then 4), a StringPrompt in two versions and a MessagesPrompt. Prints one JSON line with
// the refs the SDK answered.
import * as weave from 'weave';

const [project] = process.argv.slice(2);
const client = await weave.init(project);

const rows = [
  { question: 'Capital of France?', expected: 'Paris' },
  { question: 'Capital of Japan?', expected: 'Tokyo' },
  { question: 'Capital of Peru?', expected: 'Lima' },
];
const datasetV0 = await client.publish(new weave.Dataset({ name: 'capitals', rows }));
const datasetV1 = await client.publish(new weave.Dataset({ name: 'capitals', rows: [...rows, { question: 'Capital of Kenya?', expected: 'Nairobi' }] }));

const greetingV0 = await client.publish(new weave.StringPrompt({ content: 'Hello {name}!' }), 'greeting');
const greetingV1 = await client.publish(new weave.StringPrompt({ content: 'Hello {name}, welcome to {place}.' }), 'greeting');
const support = await client.publish(
  new weave.MessagesPrompt({
    messages: [
      { role: 'system', content: 'You are a support agent for {product}. Answer briefly.' },
      { role: 'user', content: '{question}' },
    ],
  }),
  'support-chat',
);
await client.waitForBatchProcessing?.();
console.log(JSON.stringify({ refs: [datasetV0, datasetV1, greetingV0, greetingV1, support].map((ref) => ref.uri()) }));
