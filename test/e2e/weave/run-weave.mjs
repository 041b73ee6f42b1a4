// Runs the published Weave TypeScript SDK against WF_TRACE_SERVER_URL (key in WANDB_API_KEY) in its own process,
// so the SDK's own process.exit on repeated failures cannot take the test runner down. Prints one JSON line with
// what it did, for the test to compare with what the server stored.
import * as weave from 'weave';

const project = process.argv[2];
const client = await weave.init(project);

const add = weave.op(async function add(a, b) {
  return a + b;
});
const explode = weave.op(async function explode(reason) {
  throw new Error(`exploded: ${reason}`);
});
const pipeline = weave.op(async function pipeline(x) {
  const sum = await add(x, 1);
  let caught = null;
  try {
    await explode('on purpose');
  } catch (error) {
    caught = error.message;
  }
  return { sum, caught };
});

const result = await pipeline(41);
await client.waitForBatchProcessing();

// Read the calls back through the SDK's own call-filter API (POST /calls/stream_query with a CallsFilter).
const roots = await client.getCalls({ trace_roots_only: true });
const adds = await client.getCalls({ op_names: [`weave:///${project}/op/add:*`] });
const children = roots.length === 1 ? await client.getCalls({ parent_ids: [roots[0].id] }) : [];
const byId = roots.length === 1 ? await client.getCall(roots[0].id) : null;
const queried = {
  roots: roots.map((call) => call.op_name),
  adds: adds.map((call) => ({ inputs: call.inputs, output: call.output, parent_id: call.parent_id })),
  children: children.map((call) => call.op_name.replace(/^.*\/op\/([^:]+):.*$/, '$1')).sort(),
  byId: byId && { id: byId.id, output: byId.output },
  rootId: roots[0]?.id ?? null,
};
console.log(JSON.stringify({ result, queried }));
