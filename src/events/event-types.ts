// The tool-session events themselves (docs/contract.md "Tool sessions"): their
// types, the stored shape, and the content-free payload rule every store
// enforces before anything is written. One home for the rule, whatever engine
// keeps the events (log.ts for SQLite, or a PostgreSQL store).
export type ToolEventType = 'tool.session.opened' | 'agent.toolCalled' | 'agent.toolReturned' | 'tool.session.closed' | ItemEventType;
/** One `resources/read` or `prompts/get` on the MCP front door: an event of its own, its sessionId fresh. */
export type ItemEventType = 'mcp.resource.read' | 'mcp.prompt.get';
export type SessionOutcome = 'completed' | 'failed' | 'cancelled';

export interface ToolEvent {
  eventId: string;
  type: ToolEventType;
  sequence: number;
  timestamp: string;
  tenant: string;
  principal: string;
  sessionId: string;
  payload: Record<string, string | number | boolean>;
}

export type AppendInput = Pick<ToolEvent, 'type' | 'tenant' | 'principal' | 'sessionId' | 'payload'>;

/**
 * One stored event as its wire JSON, built by the store from the row (the
 * same keys, in the same order, as JSON.stringify of the ToolEvent), so
 * serving a page parses and re-serializes nothing in JavaScript.
 */
export interface SerializedEvent {
  sequence: number;
  type: ToolEventType;
  json: string;
}

export const TOOL_EVENT_TYPES: readonly ToolEventType[] = ['tool.session.opened', 'agent.toolCalled', 'agent.toolReturned', 'tool.session.closed', 'mcp.resource.read', 'mcp.prompt.get'];
export const SESSION_OUTCOMES: readonly SessionOutcome[] = ['completed', 'failed', 'cancelled'];
export const RETURN_STATUSES = ['ok', 'error', 'invalid', 'invalid_output', 'refused', 'timeout', 'cancelled'] as const;
export type ReturnStatus = (typeof RETURN_STATUSES)[number];

type FieldKind = 'id' | 'status' | 'outcome' | 'duration' | 'size' | 'profile?';

/** The provider profiles a call's arguments may come in (docs/compact-view.md). */
const PROFILES: readonly string[] = ['openai-strict', 'gemini', 'anthropic'];

/** The whole payload of each event type: exactly these keys, nothing else. */
const PAYLOAD_SHAPE: Readonly<Record<ToolEventType, Readonly<Record<string, FieldKind>>>> = {
  'tool.session.opened': { sessionId: 'id', toolId: 'id', profile: 'profile?' },
  'agent.toolCalled': { sessionId: 'id', toolId: 'id', callId: 'id' },
  'agent.toolReturned': { sessionId: 'id', toolId: 'id', callId: 'id', status: 'status', durationMs: 'duration' },
  'tool.session.closed': { sessionId: 'id', toolId: 'id', outcome: 'outcome' },
  // itemId: the rule id of what was read (`mcp:<server>:<uri>`, `mcp:<server>.<prompt>`); bytes: the size of what was answered.
  'mcp.resource.read': { sessionId: 'id', itemId: 'id', status: 'status', bytes: 'size', durationMs: 'duration' },
  'mcp.prompt.get': { sessionId: 'id', itemId: 'id', status: 'status', bytes: 'size', durationMs: 'duration' },
};

/** Each shape's entries, listed once: every append checks every event against them. */
const SHAPE_ENTRIES = Object.fromEntries(Object.entries(PAYLOAD_SHAPE).map(([type, shape]) => [type, Object.entries(shape)])) as Record<ToolEventType, [string, FieldKind][]>;

/** Identifiers are short; anything longer is not an identifier. */
const MAX_ID_LENGTH = 2048;

function checkId(what: string, value: unknown): void {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_ID_LENGTH) {
    throw new TypeError(`event ${what} must be a non-empty string of at most ${MAX_ID_LENGTH} characters`);
  }
}

function checkPayload(type: ToolEventType, sessionId: string, payload: Record<string, unknown>): void {
  const shape = PAYLOAD_SHAPE[type];
  for (const key of Object.keys(payload)) {
    if (!Object.hasOwn(shape, key)) throw new TypeError(`${type} payload may not hold "${key}": payloads are content-free (${Object.keys(shape).join(', ')})`);
  }
  for (const [key, kind] of SHAPE_ENTRIES[type]) {
    const value = payload[key];
    if (value === undefined && kind === 'profile?') continue;
    if (value === undefined) throw new TypeError(`${type} payload needs "${key}"`);
    switch (kind) {
      case 'id':
        checkId(`payload.${key}`, value);
        break;
      case 'status':
        if (!(RETURN_STATUSES as readonly unknown[]).includes(value)) throw new TypeError(`${type} payload.${key} must be one of ${RETURN_STATUSES.join(', ')}`);
        break;
      case 'outcome':
        if (!(SESSION_OUTCOMES as readonly unknown[]).includes(value)) throw new TypeError(`${type} payload.${key} must be one of ${SESSION_OUTCOMES.join(', ')}`);
        break;
      case 'profile?':
        if (!PROFILES.includes(value as string)) throw new TypeError(`${type} payload.${key} must be one of ${PROFILES.join(', ')}`);
        break;
      case 'size':
        if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw new TypeError(`${type} payload.${key} must be an integer >= 0`);
        break;
      case 'duration':
        if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw new TypeError(`${type} payload.${key} must be a finite number >= 0`);
        break;
    }
  }
  if (payload.sessionId !== sessionId) throw new TypeError(`${type} payload.sessionId must equal the event's sessionId`);
}

/** Throws a TypeError unless the event is well formed and its payload content-free. */
export function checkEvent(event: AppendInput): void {
  if (!TOOL_EVENT_TYPES.includes(event.type)) throw new TypeError(`unknown event type ${String(event.type)}`);
  checkId('tenant', event.tenant);
  checkId('principal', event.principal);
  checkId('sessionId', event.sessionId);
  checkPayload(event.type, event.sessionId, event.payload);
}
