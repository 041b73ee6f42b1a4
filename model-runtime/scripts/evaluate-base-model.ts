/**
 * Held-out exact-match accuracy of a model directory per task (greedy decoding),
 * written to DIR/evaluation.json for the model card.
 *
 *   node dist/model-runtime/scripts/evaluate-base-model.js [--dir models/trellis-tiny] [--per-task 50]
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadModel } from '../model.js';
import { BASE_TASKS, sampleExamples } from '../synthetic-corpus.js';
import { exactMatchAccuracy } from '../task-evaluation.js';

const { values } = parseArgs({ options: { dir: { type: 'string', default: 'models/trellis-tiny' }, 'per-task': { type: 'string', default: '50' } } });
const model = loadModel(values.dir!);
const perTask = Number(values['per-task']);
const examples = sampleExamples(BASE_TASKS, perTask * BASE_TASKS.length, 987_654, 'heldout');
const started = Date.now();
const results = exactMatchAccuracy(model, null, examples);
for (const r of results) console.log(`${r.task.padEnd(16)} ${r.correct}/${r.total}  ${(100 * r.accuracy).toFixed(0)}%`);
const overall = results.reduce((a, r) => a + r.correct, 0) / results.reduce((a, r) => a + r.total, 0);
console.log(`overall ${(100 * overall).toFixed(1)}% (${((Date.now() - started) / 1000).toFixed(1)} s)`);
writeFileSync(join(values.dir!, 'evaluation.json'), JSON.stringify({ split: 'heldout', decoding: 'greedy', per_task: perTask, seed: 987_654, overall, results }, null, 1) + '\n');
