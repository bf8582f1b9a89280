// Builds the sorted descriptor list from every source's RawTools (docs/contract.md "The
// catalog" and "The descriptor"): classification by the host's policy,
// workflows from their steps, unique toolIds, exec only on host extensions,
// no credential material. Pure: the same inputs give the same descriptors.
//
// A rebuild reuses what it can, so that a refresh costs what changed, not
// the size of the catalog: given the previous build's tools, a tool whose
// RawTool content and classification are unchanged keeps its BuiltTool
// object, descriptor included, so the snapshot keeps its serialized and
// compacted entry too. Classification results are cached per tool input.
// What the snapshot needs to know about how a tool was made (which previous
// descriptor a rebound tool repeats, the schema text a new one was checked
// with) is returned beside the tools, for that snapshot only.
import type { Classification, ToolDescriptor } from '../contract/descriptor.js';
import type { ClassifyResult, Policy } from '../classify/policy.js';
import type { RawTool } from '../sources/raw-tool.js';
import { copyValue, isJsonText, sameJsonText } from '../util/json-text.js';
import { sameJson } from '../util/same-json.js';
import { describeTool, type SchemaTexts } from './describe.js';
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
  /** The previous build's tools: unchanged ones are reused as they are. */
  previous?: PreviousBuild;
  /** Classification results kept across builds (the policy must not change in between). */
  classifyCache?: ClassifyCache;
}

/** What a build may reuse from the one before (a CatalogSnapshot is one). */
export interface PreviousBuild {
  /** Sorted by toolId. */
  readonly tools: readonly BuiltTool[];
  tool(toolId: string): BuiltTool | undefined;
}

/** Policy results per (source, toolId, derived classification), kept from one build to the next. */
export class ClassifyCache {
  /** By source (and derived classification, when there is one), then by toolId. */
  private current = new Map<string, Map<string, ClassifyResult>>();
  private next = new Map<string, Map<string, ClassifyResult>>();

  classify(policy: Policy, toolId: string, source: RawTool['source'], derived: Partial<Classification> | undefined): ClassifyResult {
    const group = derived === undefined ? source : `${source}\u0000${JSON.stringify(derived)}`;
    let next = this.next.get(group);
    if (next === undefined) this.next.set(group, (next = new Map()));
    let r = next.get(toolId) ?? this.current.get(group)?.get(toolId);
    if (r === undefined) r = policy.classify({ toolId, source, derived });
    next.set(toolId, r);
    return r;
  }

  /** Ends a build: only what this build asked for is kept for the next one. */
  endBuild(): void {
    this.current = this.next;
    this.next = new Map();
  }
}

/**
 * A BuiltTool made by this module: it also remembers what a later build
 * needs to reuse it (the policy's scopes, what redaction removed).
 * Plain fields, not WeakMaps: ten thousand WeakMap entries per build cost GC time.
 */
class Built implements BuiltTool {
  constructor(
    readonly descriptor: ToolDescriptor,
    readonly raw: RawTool,
    readonly classification: Classification,
    readonly policyScopes: readonly string[],
    readonly redacted: readonly string[],
    /** Schema parts calls are not checked against (describeTool), said again by builds that reuse the tool. */
    readonly unenforced: readonly string[],
    /** What the build said of this tool (an exec tier refused), said again by builds that reuse it. */
    readonly problem?: BuildProblem,
  ) {}
}

/**
 * The prior tool, pointed at the new (content-equal) RawTool, so the old
 * RawTool objects are not kept alive beside the source's new ones: the
 * descriptor's schemas are the raw ones when redaction left them as they were.
 */
function rebind(prior: Built, raw: RawTool): Built {
  if (prior.raw === raw) return prior;
  const d = prior.descriptor;
  const descriptor = {} as ToolDescriptor;
  for (const key of Object.keys(d) as (keyof ToolDescriptor)[]) {
    if (key !== 'inputSchema' && key !== 'outputSchema') {
      copyValue(d, descriptor, key);
      continue;
    }
    if (isJsonText(d, key)) copyValue(sameJsonText(d, prior.raw, key) === true && isJsonText(raw, key) ? raw : d, descriptor, key);
    // (A schema held as text in the RawTool but not in the descriptor was redacted: never the same object.)
    else descriptor[key] = d[key] !== undefined && !isJsonText(prior.raw, key) && d[key] === prior.raw[key] ? raw[key] : d[key];
  }
  return new Built(descriptor, raw, prior.classification, prior.policyScopes, prior.redacted, prior.unenforced, prior.problem);
}

function sameClassification(a: Classification, b: Classification): boolean {
  return (
    a.safetyTier === b.safetyTier &&
    a.replayPolicy === b.replayPolicy &&
    a.egress === b.egress &&
    a.approval === b.approval &&
    a.costHint === b.costHint &&
    a.latencyHint === b.latencyHint
  );
}

function sameStrings(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export interface BuildResult {
  /** Sorted by toolId, byte order. */
  tools: BuiltTool[];
  /**
   * By toolId, for each tool rebound to a new, content-equal RawTool: the
   * descriptor of the previous build's tool it repeats, whose snapshot entry
   * it may keep. For the snapshot made from this build only: kept longer, it
   * would keep the previous tools alive.
   */
  repeats: ReadonlyMap<string, ToolDescriptor>;
  /** By toolId, for tools described by this build: their schemas' JSON text, to serialize them without stringifying again. */
  schemaTexts: ReadonlyMap<string, SchemaTexts>;
  problems: BuildProblem[];
  warnings: string[];
}

function byteOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The tools sorted by toolId; the previous build's order when the set of ids is the same (a refresh that changed content only). */
function sortedTools(built: ReadonlyMap<string, BuiltTool>, previous: PreviousBuild | undefined): BuiltTool[] {
  const before = previous?.tools;
  if (before !== undefined && before.length === built.size && before.length > 0) {
    const out: BuiltTool[] = [];
    for (const p of before) {
      const t = built.get(p.descriptor.toolId);
      if (t === undefined) break;
      out.push(t);
    }
    if (out.length === built.size) return out;
  }
  return [...built.values()].sort((a, b) => byteOrder(a.descriptor.toolId, b.descriptor.toolId));
}

/** One toolId per tool: a second tool with the same toolId is a fatal problem, and left out. */
function uniqueById(rawTools: readonly RawTool[], problems: BuildProblem[]): Map<string, RawTool> {
  const unique = new Map<string, RawTool>();
  for (const raw of rawTools) {
    const prior = unique.get(raw.toolId);
    if (prior) {
      problems.push({ fatal: true, message: `duplicate toolId ${raw.toolId}: declared by ${prior.origin} and by ${raw.origin}` });
      continue;
    }
    unique.set(raw.toolId, raw);
  }
  return unique;
}

/** What one build collects as it adds tools, and how it adds one (reused, rebound or described anew). */
class CatalogBuild {
  readonly problems: BuildProblem[] = [];
  readonly warnings: string[] = [];
  readonly built = new Map<string, BuiltTool>();
  readonly repeats = new Map<string, ToolDescriptor>();
  readonly schemaTexts = new Map<string, SchemaTexts>();

  constructor(
    private readonly policy: Policy,
    private readonly options: BuildOptions,
  ) {}

  /** Said on every build, for a reused tool too. */
  private warnRedacted(toolId: string, redacted: readonly string[], unenforced: readonly string[]): void {
    if (redacted.length > 0) this.warnings.push(`${toolId}: credential-like values removed at ${redacted.join(', ')}`);
    for (const u of unenforced) this.warnings.push(`${toolId}: ${u}`);
  }

  /** The policy's classification of a tool, exec downgraded to write (a fatal problem) outside host extensions. */
  private classify(raw: RawTool, derived: Classification | undefined): { classification: Classification; scopes: readonly string[]; problem?: BuildProblem } {
    const { classifyCache } = this.options;
    const input = derived ?? raw.derived;
    const result = classifyCache ? classifyCache.classify(this.policy, raw.toolId, raw.source, input) : this.policy.classify({ toolId: raw.toolId, source: raw.source, derived: input });
    const { scopes, tierRule } = result;
    // A cached result is shared: never change it in place.
    const classification = result.classification;
    if (classification.safetyTier !== 'exec' || raw.source === 'host-extension') return { classification, scopes };
    const by = tierRule === undefined ? 'its classification' : `policy rule #${tierRule + 1}`;
    const problem = { fatal: true, message: `${raw.toolId} (${raw.origin}): ${by} sets safetyTier exec, which only host-extension tools may have; treated as write` };
    this.problems.push(problem);
    return { classification: { ...classification, safetyTier: 'write' }, scopes, problem };
  }

  add(raw: RawTool, derived?: Classification): void {
    const prior = this.options.previous?.tool(raw.toolId);
    // The same RawTool object (sources hand back unchanged tools as they
    // were) under the same policy: nothing to classify or describe again.
    // Not for workflows, whose classification follows their steps.
    if (derived === undefined && prior instanceof Built && prior.raw === raw) {
      if (prior.problem !== undefined) this.problems.push(prior.problem);
      this.warnRedacted(raw.toolId, prior.redacted, prior.unenforced);
      this.built.set(raw.toolId, prior);
      return;
    }
    const { classification, scopes, problem } = this.classify(raw, derived);
    if (prior instanceof Built && sameClassification(prior.classification, classification) && sameStrings(prior.policyScopes, scopes) && sameJson(prior.raw, raw)) {
      this.warnRedacted(raw.toolId, prior.redacted, prior.unenforced);
      const tool = rebind(prior, raw);
      if (tool !== prior) this.repeats.set(raw.toolId, prior.descriptor);
      this.built.set(raw.toolId, tool);
      return;
    }
    const { descriptor, redacted, unenforced, schemaTexts: texts } = describeTool(raw, classification, scopes);
    if (texts !== undefined) this.schemaTexts.set(raw.toolId, texts);
    this.warnRedacted(raw.toolId, redacted, unenforced);
    this.built.set(raw.toolId, new Built(descriptor, raw, classification, scopes, redacted, unenforced, problem));
  }
}

/**
 * Adds the workflows once their steps are built, classified from their
 * steps. Workflows may call workflows: resolved depth-first, refusing
 * cycles; a workflow with a missing step is withheld.
 */
function addWorkflows(workflows: readonly RawTool[], unique: ReadonlyMap<string, RawTool>, build: CatalogBuild, isMissingStepFatal: BuildOptions['isMissingStepFatal']): void {
  const state = new Map<string, 'visiting' | 'done' | 'withheld'>();
  const resolve = (wf: RawTool, path: string[]): boolean => {
    const s = state.get(wf.toolId);
    if (s === 'done') return true;
    if (s === 'withheld') return false;
    if (s === 'visiting') {
      build.problems.push({ fatal: true, message: `workflow cycle: ${[...path, wf.toolId].join(' -> ')}` });
      return false;
    }
    state.set(wf.toolId, 'visiting');
    const stepClasses: Classification[] = [];
    let ok = true;
    for (const step of wf.steps ?? []) {
      const inner = unique.get(step);
      if (inner?.source === 'workflow' && !resolve(inner, [...path, wf.toolId])) ok = false;
      const b = build.built.get(step);
      if (!b) {
        if (!inner) {
          const fatal = isMissingStepFatal?.(step) ?? true;
          const message = `${wf.toolId} (${wf.origin}): step calls ${step}, which is not in the catalog`;
          if (fatal) build.problems.push({ fatal, message });
          else build.warnings.push(`${message}; the workflow is withheld until it appears`);
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
    build.add(wf, classifyFromSteps(stepClasses));
    state.set(wf.toolId, 'done');
    return true;
  };
  for (const wf of workflows) resolve(wf, []);
}

export function buildCatalog(rawTools: readonly RawTool[], policy: Policy, options: BuildOptions = {}): BuildResult {
  const build = new CatalogBuild(policy, options);
  const unique = uniqueById(rawTools, build.problems);
  const workflows: RawTool[] = [];
  for (const raw of unique.values()) {
    if (raw.source === 'workflow') workflows.push(raw);
    else build.add(raw);
  }
  addWorkflows(workflows, unique, build, options.isMissingStepFatal);
  options.classifyCache?.endBuild();
  const { built, repeats, schemaTexts, problems, warnings } = build;
  return { tools: sortedTools(built, options.previous), repeats, schemaTexts, problems, warnings };
}
