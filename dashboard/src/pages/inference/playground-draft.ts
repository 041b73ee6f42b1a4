import type { ChatMessageRole, ChatToolCallInput } from '../../graphql/generated';

/** One message of a playground conversation, in the graph's ChatMessageInput shape. */
export interface PlaygroundMessage {
  role: ChatMessageRole;
  content: string | null;
  name?: string | null;
  toolCallId?: string | null;
  toolCalls?: ChatToolCallInput[] | null;
}

/** The common sampling parameters the playground sends. */
export interface PlaygroundParameters {
  maxTokens: number;
  temperature: number;
  topP: number | null;
  seed: number | null;
  /** Stop sequences, one per line. */
  stop: string;
}

export const DEFAULT_PARAMETERS: PlaygroundParameters = { maxTokens: 128, temperature: 0.7, topP: null, seed: null, stop: '' };

/** What another page hands the playground: a conversation to continue, and optionally a model and parameters. */
export interface PlaygroundDraft {
  model?: string | null;
  system?: string | null;
  messages: PlaygroundMessage[];
  parameters?: Partial<PlaygroundParameters>;
}

// Handed over through this tab's session storage, not the URL: a traced conversation can be long and private, and a
// URL ends up in history and server logs.
const DRAFT_KEY = 'trellis.dashboard.playgroundDraft';

/** Stores the draft for the Inference page's playground to take on its next render (see `takePlaygroundDraft`). */
export function storePlaygroundDraft(draft: PlaygroundDraft): void {
  sessionStorage.setItem(DRAFT_KEY, JSON.stringify(draft));
}

/** The draft another page left, once: it is removed as it is read. */
export function takePlaygroundDraft(): PlaygroundDraft | null {
  try {
    const stored = sessionStorage.getItem(DRAFT_KEY);
    sessionStorage.removeItem(DRAFT_KEY);
    if (!stored) return null;
    const draft = JSON.parse(stored) as PlaygroundDraft;
    return Array.isArray(draft.messages) ? draft : null;
  } catch {
    return null;
  }
}

/** Where "Open in playground" leads: the Inference page, scrolled to its playground. */
export const PLAYGROUND_PATH = '/inference#playground';
