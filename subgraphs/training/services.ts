import type { CheckpointChatService } from './chat/checkpoint-chat.service.js';
import type { UsageEventPublisher } from './chat/completion-accounting.js';
import type { CheckpointPromotionService } from './promotion/checkpoint-promotion.service.js';
import type { RemoteWorkerService } from './remote/remote-worker.service.js';
import type { TraceDatasetExporter } from './sft/trace-dataset-export.js';
import type { TrainingJobRunner } from './job/job-runner.js';
import type { TrainingStore } from './store.js';
import type { TrainingConfig } from './training-config.js';
import type { TrainingService } from './training-service.js';

export interface TrainingServices {
  store: TrainingStore;
  training: TrainingService;
  /** Named checkpoint aliases (`production`). */
  promotion: CheckpointPromotionService;
  /** Weave Datasets exported as SFT train.jsonl, through the graph. */
  datasetExport: TraceDatasetExporter;
  config: TrainingConfig;
  runner: TrainingJobRunner;
  chat: CheckpointChatService;
  remote: RemoteWorkerService;
  /** Usage of checkpoint completions, on its way to inference's accounting. */
  usageEvents: UsageEventPublisher;
}
