import type { TrainingStore } from './store.js';
import type { TrainingService } from './training-service.js';

export interface TrainingServices {
  store: TrainingStore;
  training: TrainingService;
}
