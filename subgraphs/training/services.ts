import type { TrainingStore } from './store.js';

export interface TrainingServices {
  store: TrainingStore;
}
