// Calls a catalog entry within its call's scope, and runs a workflow's steps
// (docs/mcp.md "tools/call"): each step is a tool call under the same rules as
// a direct call (visibility, argument validation, dispatch), all inside the
// one tool session of the workflow call. The workflow source owns its
// definitions and asks for its steps to be run through the context it is
// called with; the running, which needs the snapshot, the caller and the
// session, stays here.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { CatalogSnapshot, ToolEntry } from '../catalog/snapshot.js';
import type { Principal } from '../auth/principal.js';
import type { JsonValue } from '../contract/descriptor.js';
import type { ToolSession } from '../events/session.js';
import { CallAbort, errorResult, resultOf, type DispatchOutcome } from '../sources/call-result.js';
import type { CallRelay, ComposedStep, InvokeContext } from '../sources/raw-tool.js';
import { argumentProblem } from './arguments.js';
import { dispatchAsCaller } from './upstream-call.js';
import { outputProblem } from './output-schema.js';
import type { InvokeDeps } from './types.js';

/** One catalog call and everything its steps share. */
export interface CallScope {
  deps: InvokeDeps;
  snapshot: CatalogSnapshot;
  caller: Principal;
  session: ToolSession | undefined;
  signal: AbortSignal | undefined;
  /** How many workflows deep this call is. */
  depth: number;
  /** What the call reports to its client while it runs; a step reports no progress of its own (see runSteps). */
  relay?: CallRelay;
}

const MAX_NESTING = 8;

function valueAt(value: unknown, path: string | undefined): unknown {
  if (!path) return value;
  let v = value;
  for (const key of path.split('.')) v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[key] : undefined;
  return v;
}

/** Step arguments: `{ $input: name }` reads a workflow input, `{ $step: i, path }` an earlier step's result, anything else is literal. */
export function resolveStepArgs(template: JsonValue | undefined, input: Record<string, unknown>, results: unknown[]): unknown {
  if (template === undefined) return {};
  if (Array.isArray(template)) return template.map((t) => resolveStepArgs(t, input, results));
  if (template !== null && typeof template === 'object') {
    if (typeof template.$input === 'string') return input[template.$input];
    if (typeof template.$step === 'number') return valueAt(results[template.$step], typeof template.path === 'string' ? template.path : undefined);
    return Object.fromEntries(Object.entries(template).map(([k, v]) => [k, resolveStepArgs(v, input, results)]));
  }
  return template;
}

function structuredOf(result: CallToolResult): unknown {
  if (result.structuredContent !== undefined) return result.structuredContent;
  const first = result.content?.[0];
  if (first?.type !== 'text') return undefined;
  try {
    return JSON.parse(first.text);
  } catch {
    return first.text;
  }
}

/**
 * Calls the entry's tool through its source, with a context whose step
 * runner stays in this scope, and holds the result to the tool's outputSchema.
 */
export async function invokeInScope(scope: CallScope, entry: ToolEntry, args: Record<string, unknown>): Promise<DispatchOutcome> {
  const context: InvokeContext = {
    ...scope.relay,
    signal: scope.signal,
    defaultTimeoutMs: scope.deps.callTimeoutMs,
    tenant: scope.caller.tenant,
    runSteps: (steps, input) => runSteps(scope, steps, input),
  };
  const toolId = entry.tool.descriptor.toolId;
  const outcome = await dispatchAsCaller(scope.deps, scope.caller, toolId, args, context);
  const problem = outcome.status === 'ok' ? outputProblem(entry, outcome.result) : undefined;
  if (problem === undefined) return outcome;
  const sourceId = scope.deps.sources.sourceFor(toolId)?.id ?? entry.tool.descriptor.source;
  scope.deps.sources.noteOutputSchemaMismatch(sourceId, toolId, problem);
  scope.deps.toolCalls?.outputSchemaMismatch(sourceId);
  scope.deps.logger.warn({ event: 'output_schema_mismatch', toolId, source: sourceId, problem }, 'a tool result did not match its outputSchema');
  // The tool's own content stays (a model may still use it); the structuredContent, which would fail the client's validation, goes.
  const explanation = errorResult(`${toolId} returned a result that does not match its outputSchema: ${problem}`);
  return { status: 'invalid_output', result: { content: [...(outcome.result.content ?? []), ...explanation.content], isError: true } };
}

async function runSteps(scope: CallScope, steps: readonly ComposedStep[], args: Record<string, unknown>): Promise<DispatchOutcome> {
  if (scope.depth > MAX_NESTING) return { status: 'error', result: errorResult('the workflow cannot be run') };
  const { snapshot, caller, session } = scope;
  // The workflow reports its own progress, step i of n; a step's progress, on another scale, would make it jump back.
  const report = scope.relay?.onProgress;
  const inner: CallScope = { ...scope, depth: scope.depth + 1, relay: scope.relay && { ...scope.relay, onProgress: undefined } };
  const results: unknown[] = [];
  for (const [i, step] of steps.entries()) {
    report?.(i, steps.length, `step ${i + 1} of ${steps.length}: ${step.tool}`);
    const stepEntry = snapshot.lookup(caller, step.tool);
    const callId = session?.called(step.tool) ?? '';
    const started = performance.now();
    const done = (status: DispatchOutcome['status']) => session?.returned(callId, step.tool, status, Math.round(performance.now() - started));
    if (!stepEntry) {
      done('refused');
      return { status: 'error', result: errorResult(`step ${i + 1} calls a tool that is not available`) };
    }
    const stepArgs = resolveStepArgs(step.with, args, results);
    const problem = argumentProblem(stepEntry, stepArgs);
    if (problem) {
      done('invalid');
      return { status: 'error', result: errorResult(`step ${i + 1} (${step.tool}): invalid arguments: ${problem}`) };
    }
    if (session) {
      try {
        // The step's write-ahead record (with the previous step's toolReturned): no step runs unrecorded.
        await session.commit({ writeAhead: true });
      } catch (err) {
        done('refused');
        throw err;
      }
    }
    let outcome: DispatchOutcome;
    try {
      outcome = await invokeInScope(inner, stepEntry, stepArgs as Record<string, unknown>);
    } catch (err) {
      if (err instanceof CallAbort) done(err.status);
      throw err;
    }
    done(outcome.status);
    if (outcome.status !== 'ok') return { status: outcome.status, result: { ...outcome.result, isError: true } };
    results.push(structuredOf(outcome.result));
  }
  report?.(steps.length, steps.length);
  // The last step's result is the workflow's result, so a workflow's outputSchema can describe it.
  return { status: 'ok', result: resultOf(results[results.length - 1] ?? null) };
}
