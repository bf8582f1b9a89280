// Builds the sorted descriptor list from every source's RawTools (seed "The
// catalog" and "The descriptor"): classification by the host's policy,
// workflows from their steps, unique toolIds, exec only on host extensions,
// no credential material. Pure: the same inputs give the same descriptors.
import type { Classification, ToolDescriptor } from '../contract/descriptor.js';
import type { Policy } from '../classify/policy.js';
import type { RawTool } from '../sources/raw-tool.js';
import { describeTool } from './describe.js';
import { classifyFromSteps } from './workflow-classification.js';

export interface BuiltTool {
  descriptor: ToolDescriptor;
  raw: RawTool;
  classification: Classification;
}

export interface BuildProblem {
  message: string;
  /** Fatal problems stop the host at start; on a refresh the offending tool is left out or downgraded. */
  fatal: boolean;
}

export interface BuildOptions {
  /**
   * Decides whether a workflow step naming a missing tool is a config error
   * (true) or a tool that may still appear, e.g. on an MCP server that is down (false).
   */
  isMissingStepFatal?: (toolId: string) => boolean;
}

export interface BuildResult {
  /** Sorted by toolId, byte order. */
  tools: BuiltTool[];
  problems: BuildProblem[];
  warnings: string[];
}

function byteOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function buildCatalog(rawTools: readonly RawTool[], policy: Policy, options: BuildOptions = {}): BuildResult {
  const problems: BuildProblem[] = [];
  const warnings: string[] = [];
  const unique = new Map<string, RawTool>();
  for (const raw of rawTools) {
    const prior = unique.get(raw.toolId);
    if (prior) {
      problems.push({ fatal: true, message: `duplicate toolId ${raw.toolId}: declared by ${prior.origin} and by ${raw.origin}` });
      continue;
    }
    unique.set(raw.toolId, raw);
  }

  const built = new Map<string, BuiltTool>();
  const add = (raw: RawTool, derived?: Classification): void => {
    const { classification, scopes, tierRule } = policy.classify({ toolId: raw.toolId, source: raw.source, derived: derived ?? raw.derived });
    if (classification.safetyTier === 'exec' && raw.source !== 'host-extension') {
      const by = tierRule === undefined ? 'its classification' : `policy rule #${tierRule + 1}`;
      problems.push({ fatal: true, message: `${raw.toolId} (${raw.origin}): ${by} sets safetyTier exec, which only host-extension tools may have; treated as write` });
      classification.safetyTier = 'write';
    }
    const { descriptor, redacted } = describeTool(raw, classification, scopes);
    if (redacted.length > 0) warnings.push(`${raw.toolId}: credential-like values removed at ${redacted.join(', ')}`);
    built.set(raw.toolId, { descriptor, raw, classification });
  };

  const workflows: RawTool[] = [];
  for (const raw of unique.values()) {
    if (raw.source === 'workflow') workflows.push(raw);
    else add(raw);
  }

  // Workflows may call workflows: resolve depth-first, refusing cycles.
  const state = new Map<string, 'visiting' | 'done' | 'withheld'>();
  const resolve = (wf: RawTool, path: string[]): boolean => {
    const s = state.get(wf.toolId);
    if (s === 'done') return true;
    if (s === 'withheld') return false;
    if (s === 'visiting') {
      problems.push({ fatal: true, message: `workflow cycle: ${[...path, wf.toolId].join(' -> ')}` });
      return false;
    }
    state.set(wf.toolId, 'visiting');
    const stepClasses: Classification[] = [];
    let ok = true;
    for (const step of wf.steps ?? []) {
      const inner = unique.get(step);
      if (inner?.source === 'workflow' && !resolve(inner, [...path, wf.toolId])) ok = false;
      const b = built.get(step);
      if (!b) {
        if (!inner) {
          const fatal = options.isMissingStepFatal?.(step) ?? true;
          const message = `${wf.toolId} (${wf.origin}): step calls ${step}, which is not in the catalog`;
          if (fatal) problems.push({ fatal, message });
          else warnings.push(`${message}; the workflow is withheld until it appears`);
        }
        ok = false;
        continue;
      }
      stepClasses.push(b.classification);
    }
    if (!ok) {
      state.set(wf.toolId, 'withheld');
      return false;
    }
    add(wf, classifyFromSteps(stepClasses));
    state.set(wf.toolId, 'done');
    return true;
  };
  for (const wf of workflows) resolve(wf, []);

  const tools = [...built.values()].sort((a, b) => byteOrder(a.descriptor.toolId, b.descriptor.toolId));
  return { tools, problems, warnings };
}
