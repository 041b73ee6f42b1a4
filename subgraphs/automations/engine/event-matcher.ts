import type { PlatformEvent } from '../../../platform/events/index.js';
import type { AutomationEvent, RunFilter } from '../automations.schemas.js';
import type { EventVariables } from '../automation/payload-template.js';
import type { AutomationRow } from '../store.js';
import { userRegexMatches } from '../automation/user-regex.js';

/** The parts of a registry event payload the engine reads (the payload is the registry's published contract). */
interface EventPayload {
  alias?: string;
  tag?: string;
  collection?: string;
  artifactVersion?: { metadata?: Record<string, unknown> } & Record<string, unknown>;
  artifactVersionString?: string;
  run?: { id: string; name: string; author: string; state: string };
  state?: string;
  metric?: { name: string; value: number; step: number };
}

export function payloadOf(event: PlatformEvent): EventPayload {
  return event.payload as EventPayload;
}

/** Automation event kinds a platform event can trigger. */
export function automationKindsFor(eventType: string): string[] {
  return eventType === 'RUN_METRIC' ? ['RUN_METRIC', 'RUN_METRIC_CHANGE'] : [eventType];
}

/**
 * Whether `automation` reacts to `event` apart from metric windows (which need history, see metric-condition.ts):
 * alias/tag regexes, watched run states, metric name, and the run filters (author, run-name regex).
 */
export function matchesFilters(automation: AutomationRow, event: PlatformEvent): boolean {
  const filter = automation.event_filter as AutomationEvent;
  const payload = payloadOf(event);
  switch (filter.type) {
    case 'ADD_ARTIFACT_ALIAS':
      return payload.alias !== undefined && (!filter.aliasRegex || userRegexMatches(filter.aliasRegex, payload.alias));
    case 'ADD_ARTIFACT_TAG':
      return payload.tag !== undefined && (!filter.tagRegex || userRegexMatches(filter.tagRegex, payload.tag));
    case 'RUN_STATE':
      return payload.state !== undefined && (filter.runStates ?? []).includes(payload.state as never) && matchesRun(automation, payload);
    case 'RUN_METRIC':
    case 'RUN_METRIC_CHANGE':
      return payload.metric?.name === filter.metricName && matchesRun(automation, payload);
    case 'MONITOR_SCORE_DROP':
      // The drop's payload names the monitor as its metric: metricName, when given, picks one monitor.
      return !filter.metricName || payload.metric?.name === filter.metricName;
    default:
      return true;
  }
}

function matchesRun(automation: AutomationRow, payload: EventPayload): boolean {
  const runFilter = automation.run_filter as RunFilter;
  if (!payload.run) return false;
  if (runFilter.user && payload.run.author !== runFilter.user) return false;
  if (runFilter.runNameRegex && !userRegexMatches(runFilter.runNameRegex, payload.run.name)) return false;
  return true;
}

/** The values of the payload variables for one automation run. */
export function eventVariables(automation: AutomationRow, event: PlatformEvent): EventVariables {
  const payload = payloadOf(event);
  return {
    project_name: event.project ?? '',
    entity_name: event.entity,
    event_type: automation.event_type,
    event_author: event.author,
    alias: payload.alias ?? '',
    tag: payload.tag ?? '',
    artifact_collection_name: payload.collection ?? '',
    artifact_version: payload.artifactVersion ?? null,
    artifact_version_string: payload.artifactVersionString ?? '',
    artifact_metadata: payload.artifactVersion?.metadata ?? {},
    run_id: payload.run?.id ?? '',
    run_name: payload.run?.name ?? '',
    run_state: payload.state ?? payload.run?.state ?? '',
    metric_name: payload.metric?.name ?? '',
    metric_value: payload.metric?.value ?? null,
  };
}
