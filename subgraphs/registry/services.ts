import type { RegistryStore } from './store.js';

export interface RegistryServices {
  store: RegistryStore;
}
