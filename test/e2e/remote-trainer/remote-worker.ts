/**
 * A remote training worker written against the HTTP protocol only (docs/training.md), as a GPU machine elsewhere
 * would run it: lease, heartbeat, train (here with the embedded runtime, in this process), report steps, upload
 * the adapter, complete — or fail. Usage: node --import tsx remote-worker.ts <training_url> <api key> <worker id>
 */
import { DEFAULT_MODEL_DIR, loadAdapter, loadModel, saveAdapter, trainRl, trainSft } from '../../../model-runtime/index.js';

const [baseUrl, key, workerId] = process.argv.slice(2) as [string, string, string];
const base = loadModel(DEFAULT_MODEL_DIR);

async function post(path: string, body: Record<string, unknown>): Promise<any> {
  const response = await fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ worker_id: workerId, ...body }),
  });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

async function runJob(job: Record<string, any>): Promise<void> {
  const jobPath = `/v1/workers/jobs/${job.job_id}`;
  const controller = new AbortController();
  const heartbeat = setInterval(() => {
    post(`${jobPath}/heartbeat`, {}).then(
      (answer) => answer.status !== 'LEASED' && controller.abort(),
      () => undefined,
    );
  }, 200);
  try {
    const adapter = job.adapter
      ? loadAdapter(base, {
          adapterConfigJson: Buffer.from(job.adapter.files['adapter_config.json'], 'base64').toString('utf8'),
          safetensorsBytes: Buffer.from(job.adapter.files['adapter_model.safetensors'], 'base64'),
        })
      : undefined;
    const steps: Promise<unknown>[] = [];
    const onStep = (metrics: object) => {
      const numeric = Object.fromEntries(Object.entries(metrics).filter(([, value]) => typeof value === 'number' && Number.isFinite(value)));
      steps.push(post(`${jobPath}/steps`, { metrics: numeric }));
    };
    const trained =
      job.kind === 'RL'
        ? await trainRl({ base, adapter, trajectoryGroups: job.trajectory_groups, config: job.config, signal: controller.signal }, onStep)
        : await trainSft({ base, adapter, examples: job.examples, config: job.config, signal: controller.signal }, onStep);
    await Promise.all(steps);
    const files = saveAdapter(trained);
    await post(`${jobPath}/complete`, {
      step: trained.step,
      files: Object.fromEntries(Object.entries(files).map(([path, bytes]) => [path, Buffer.from(bytes).toString('base64')])),
    });
  } catch (error) {
    if (!controller.signal.aborted) await post(`${jobPath}/fail`, { error_message: `remote worker ${workerId}: ${(error as Error).message}` });
  } finally {
    clearInterval(heartbeat);
  }
}

for (;;) {
  const { job } = await post('/v1/workers/lease', {});
  if (job) await runJob(job);
  else await new Promise((resolve) => setTimeout(resolve, 100));
}
