import type { TracingStore } from './store.js';

export interface TracingServices {
  store: TracingStore;
}
