// What every tool-session event store checks and returns the same way
// (CONTRACT.md "Tool sessions"), whatever engine keeps the events: the event
// types and their content-free payloads (each type has a fixed set of keys,
// anything else is refused, so arguments, results or credentials cannot be
// logged by accident), the bounds on identifiers, the wire JSON of an event,
// and the retention options.

export type ToolEventType = 'tool.session.opened' | 'agent.toolCalled' | 'agent.toolReturned' | 'tool.session.closed';
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

export const TOOL_EVENT_TYPES: readonly ToolEventType[] = ['tool.session.opened', 'agent.toolCalled', 'agent.toolReturned', 'tool.session.closed'];
export const SESSION_OUTCOMES: readonly SessionOutcome[] = ['completed', 'failed', 'cancelled'];
export const RETURN_STATUSES = ['ok', 'error', 'invalid', 'invalid_output', 'refused', 'timeout', 'cancelled'] as const;
export type ReturnStatus = (typeof RETURN_STATUSES)[number];

type FieldKind = 'id' | 'status' | 'outcome' | 'duration';

/** The whole payload of each event type: exactly these keys, nothing else. */
const PAYLOAD_SHAPE: Readonly<Record<ToolEventType, Readonly<Record<string, FieldKind>>>> = {
  'tool.session.opened': { sessionId: 'id', toolId: 'id' },
  'agent.toolCalled': { sessionId: 'id', toolId: 'id', callId: 'id' },
  'agent.toolReturned': { sessionId: 'id', toolId: 'id', callId: 'id', status: 'status', durationMs: 'duration' },
  'tool.session.closed': { sessionId: 'id', toolId: 'id', outcome: 'outcome' },
};

/** Identifiers are short; anything longer is not an identifier. */
export const MAX_ID_LENGTH = 2048;

export function checkId(what: string, value: unknown): void {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_ID_LENGTH) {
    throw new TypeError(`event ${what} must be a non-empty string of at most ${MAX_ID_LENGTH} characters`);
  }
}

export function checkPayload(type: ToolEventType, sessionId: string, payload: Record<string, unknown>): void {
  const shape = PAYLOAD_SHAPE[type];
  for (const key of Object.keys(payload)) {
    if (!Object.hasOwn(shape, key)) throw new TypeError(`${type} payload may not hold "${key}": payloads are content-free (${Object.keys(shape).join(', ')})`);
  }
  for (const [key, kind] of Object.entries(shape)) {
    const value = payload[key];
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
      case 'duration':
        if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw new TypeError(`${type} payload.${key} must be a finite number >= 0`);
        break;
    }
  }
  if (payload.sessionId !== sessionId) throw new TypeError(`${type} payload.sessionId must equal the event's sessionId`);
}

/**
 * One stored event as its wire JSON: the same keys, in the same order, as
 * JSON.stringify of the ToolEvent, byte for byte, whichever store kept it
 * (SQLite builds it from the row, PostgreSQL stores it), so serving a page
 * parses and re-serializes nothing in JavaScript.
 */
export interface SerializedEvent {
  sequence: number;
  type: ToolEventType;
  json: string;
}

/** The retention options every store accepts (log.ts documents them). */
export interface RetentionOptions {
  retentionDays?: number;
  maxEvents?: number;
  pruneIntervalMs?: number;
  checkIntervalMs?: number;
}

export function checkRetention(options: RetentionOptions): void {
  const { retentionDays, maxEvents, pruneIntervalMs } = options;
  if (retentionDays !== undefined && !(typeof retentionDays === 'number' && Number.isFinite(retentionDays) && retentionDays > 0)) {
    throw new RangeError('retentionDays must be a positive number');
  }
  if (maxEvents !== undefined && !(Number.isSafeInteger(maxEvents) && maxEvents > 0)) throw new RangeError('maxEvents must be a positive integer');
  if (pruneIntervalMs !== undefined && !(Number.isSafeInteger(pruneIntervalMs) && pruneIntervalMs > 0)) throw new RangeError('pruneIntervalMs must be a positive integer');
  const { checkIntervalMs } = options;
  if (checkIntervalMs !== undefined && !(Number.isSafeInteger(checkIntervalMs) && checkIntervalMs > 0)) throw new RangeError('checkIntervalMs must be a positive integer');
}

/** Checks one event before it is stored: a known type, bounded identifiers, a content-free payload. Throws a TypeError. */
export function checkAppendInput(event: AppendInput): void {
  if (!TOOL_EVENT_TYPES.includes(event.type)) throw new TypeError(`unknown event type ${String(event.type)}`);
  checkId('tenant', event.tenant);
  checkId('principal', event.principal);
  checkId('sessionId', event.sessionId);
  checkPayload(event.type, event.sessionId, event.payload);
}
