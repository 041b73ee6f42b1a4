import type { InferenceStore } from './store.js';

export interface InferenceServices {
  store: InferenceStore;
}
