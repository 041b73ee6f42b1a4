import type { MonitorCallFilter } from './call-selection.js';
import type { MonitorScorer, MonitorThreshold } from './monitor.schemas.js';
import type { MonitorRow } from './monitor.store.js';

/** A monitor as the scoring reads it (a stored row with its JSON columns typed). */
export interface MonitorDefinition {
  id: string;
  projectId: string;
  name: string;
  filter: MonitorCallFilter;
  samplingRate: number;
  scorer: MonitorScorer;
  active: boolean;
  /** When its mean score is a quality drop (null: never announced). */
  threshold: MonitorThreshold | null;
  createdBy: string;
  createdAt: Date;
  updatedAt: Date;
}

export function monitorOf(row: MonitorRow): MonitorDefinition {
  return {
    id: row.id,
    projectId: row.project_id,
    name: row.name,
    filter: { op_names: row.op_names, attributes: (row.attributes ?? {}) as Record<string, unknown>, roots_only: row.roots_only },
    samplingRate: row.sampling_rate,
    scorer: row.scorer as MonitorScorer,
    active: row.active,
    threshold: (row.threshold ?? null) as MonitorThreshold | null,
    createdBy: row.created_by,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The monitor as an object ref: its scores' runnable_ref and trigger_ref (so the feedback aggregate groups by its name). */
export function monitorRef(monitor: Pick<MonitorDefinition, 'projectId' | 'name' | 'id'>): string {
  return `weave:///${monitor.projectId}/object/${monitor.name}:${monitor.id}`;
}

/** The feedback type of a monitor's scores, as Weave names a scorer's: `wandb.runnable.<name>`. */
export const monitorFeedbackType = (name: string) => `wandb.runnable.${name}`;
