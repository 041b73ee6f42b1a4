import type { AutomationsStore } from './store.js';

export interface AutomationsServices {
  store: AutomationsStore;
}
