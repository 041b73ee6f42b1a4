import cluster from 'node:cluster';
import { PrimaryChannel } from '../../platform/cluster/ipc.js';
import type { PlatformConfig } from '../../platform/config.js';
import { createModelLimiter } from '../../platform/model-access/limits.js';
import { SharedModelLimiter } from '../../platform/model-access/shared-limits.js';
import type { StartPlatformOptions } from '../platform.js';

/** The primary sets this on each process it forks: 0 for the first. */
export const PROCESS_INDEX_ENV = 'TRELLIS_PROCESS_INDEX';
export const READY_NOTICE = 'platform.ready';

export interface ClusterWorker {
  index: number;
  /** What makes this process one of several: shared limits and metrics, platform-wide work in the first only. */
  platformOptions: Pick<StartPlatformOptions, 'replica' | 'modelLimiter' | 'metrics'>;
  /** Tells the primary this process answers on its port. */
  ready(url: string): void;
  /** Calls `handler` once if the primary goes away (it was killed): the process then stops on its own. */
  onPrimaryGone(handler: () => void): void;
}

/** This process's part in a process-per-core platform, or undefined when it runs alone. */
export function clusterWorker(config: PlatformConfig): ClusterWorker | undefined {
  if (!cluster.isWorker) return undefined;
  const index = Number(process.env[PROCESS_INDEX_ENV] ?? '0');
  const primary = new PrimaryChannel();
  return {
    index,
    platformOptions: {
      replica: index > 0,
      modelLimiter: new SharedModelLimiter(primary, createModelLimiter(config).enabled),
      metrics: { primary, processIndex: index },
    },
    ready: (url) => primary.notify(READY_NOTICE, { url }),
    onPrimaryGone: (handler) => process.once('disconnect', handler),
  };
}
