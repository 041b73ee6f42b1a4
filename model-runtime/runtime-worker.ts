/**
 * Worker-thread entry: loads the base model once, then serves generation and
 * training jobs posted by GenerationWorkerPool / runTrainingInWorker. Jobs are
 * async and yield between tokens/steps, so a 'cancel' message is seen promptly.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { embed } from './embed.js';
import { generate } from './generate.js';
import { type LoraAdapter, loadAdapter, saveAdapter } from './lora-adapter.js';
import { loadModel } from './model.js';
import { type RlStepMetrics, trainRl } from './rl-trainer.js';
import { type SftStepMetrics, trainSft } from './sft-trainer.js';
import { type AdapterBytes, type FromWorker, type ToWorker, type WorkerInit, serializeError } from './worker-protocol.js';

const port = parentPort!;
const init = workerData as WorkerInit;
const model = loadModel(init.model);
const running = new Map<number, AbortController>();
const adapterCache = new Map<string, LoraAdapter>();

const post = (message: FromWorker) => port.postMessage(message);

function adapterFrom(bytes: AdapterBytes | null | undefined): LoraAdapter | null {
  if (!bytes) return null;
  if (bytes.id && adapterCache.has(bytes.id)) return adapterCache.get(bytes.id)!;
  const configJson = typeof bytes.adapterConfigJson === 'string' ? bytes.adapterConfigJson : Buffer.from(bytes.adapterConfigJson).toString('utf8');
  const adapter = loadAdapter(model, { adapterConfigJson: configJson, safetensorsBytes: bytes.safetensorsBytes });
  if (bytes.id) {
    if (adapterCache.size >= 16) adapterCache.delete(adapterCache.keys().next().value!);
    adapterCache.set(bytes.id, adapter);
  }
  return adapter;
}

async function handle(message: ToWorker): Promise<void> {
  if (message.type === 'cancel') {
    running.get(message.id)?.abort();
    return;
  }
  const controller = new AbortController();
  running.set(message.id, controller);
  try {
    if (message.type === 'generate') {
      const { adapter, ...rest } = message.request;
      const result = await generate(
        model,
        { ...rest, adapter: adapterFrom(adapter), signal: controller.signal },
        message.stream ? (event) => post({ type: 'token', id: message.id, event }) : undefined,
      );
      post({ type: 'generated', id: message.id, result });
    } else if (message.type === 'embed') {
      post({ type: 'embedded', id: message.id, result: await embed(model, { ...message.request, signal: controller.signal }) });
    } else {
      const job = message.job;
      const onStep = (metrics: SftStepMetrics | RlStepMetrics) => post({ type: 'step', id: message.id, metrics });
      const adapter = adapterFrom(job.adapter);
      const trained = job.kind === 'sft'
        ? await trainSft({ base: model, adapter, examples: job.examples, config: job.config, signal: controller.signal }, onStep)
        : await trainRl({ base: model, adapter, trajectoryGroups: job.trajectoryGroups, config: job.config, signal: controller.signal }, onStep);
      post({ type: 'trained', id: message.id, files: saveAdapter(trained) });
    }
  } catch (err) {
    post({ type: 'error', id: message.id, error: serializeError(err) });
  } finally {
    running.delete(message.id);
  }
}

port.on('message', (message: ToWorker) => void handle(message));
post({ type: 'ready' });
