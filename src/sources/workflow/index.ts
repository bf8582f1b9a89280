// Workflow source: a file per workflow (id, title,
// description, input schema, and the ordered tool calls it makes). toolId
// `workflow:<id>`. Classification and visibility come from the steps, in the
// catalog layer; here the files are read and checked, and a call hands the
// workflow's steps to the host's step runner (InvokeContext.runSteps).
import { readdirSync, statSync } from 'node:fs';
import { extname, join, resolve } from 'node:path';
import { Type, type Static } from '@sinclair/typebox';
import { formatToolId, NAME_PATTERN, parseToolId } from '../../contract/tool-id.js';
import type { JsonObject } from '../../contract/descriptor.js';
import { AnyObject, CLOSED } from '../../util/schema-builders.js';
import { ConfigError, placeOf, readLocated, validateLocated } from '../../util/validated-yaml.js';
import { declaredToolFields, pathEntrySchema } from '../json-schema-shape.js';
import { errorResult, type DispatchOutcome } from '../call-result.js';
import type { InvokeContext, RawTool } from '../raw-tool.js';
import { StaticSource } from '../static-source.js';

/** A `sources.workflows[]` entry: `path` is a workflow file, or a directory whose *.yaml, *.yml and *.json files are workflows. */
export const workflowConfigSchema = pathEntrySchema;
export type WorkflowConfig = Static<typeof workflowConfigSchema>;

const workflowStepSchema = Type.Object(
  {
    tool: Type.String({ minLength: 1 }),
    /** Arguments for the step: literal values, or `{ "$input": "name" }` to pass a workflow input through. */
    with: Type.Optional(AnyObject<JsonObject>()),
  },
  CLOSED,
);
export type WorkflowStep = Static<typeof workflowStepSchema>;

/** One workflow file. */
const workflowSchema = Type.Object(
  {
    id: Type.String({ pattern: NAME_PATTERN.source }),
    ...declaredToolFields,
    steps: Type.Array(workflowStepSchema, { minItems: 1, maxItems: 64 }),
  },
  CLOSED,
);
export type WorkflowDefinition = Static<typeof workflowSchema>;

const WORKFLOW_EXTENSIONS = new Set(['.yaml', '.yml', '.json']);

/**
 * The workflows' `invoke`. Running a step is a catalog call of its own
 * (visibility, argument validation, events in the workflow's session), which
 * only the invocation layer can make; the source knows which steps, and the
 * host's step runner, handed in with the call, runs them. That keeps the
 * definitions here, with no host-level map of them, and keeps sources from
 * calling each other.
 */
function stepsCall(definitions: ReadonlyMap<string, WorkflowDefinition>) {
  return (toolId: string, args: Record<string, unknown>, context: InvokeContext): Promise<DispatchOutcome> => {
    const definition = definitions.get(toolId);
    if (!definition) return Promise.resolve({ status: 'error', result: errorResult('the workflow cannot be run') });
    return context.runSteps(definition.steps, args);
  };
}

export function loadWorkflows(configs: readonly WorkflowConfig[], configDir: string): StaticSource {
  const files: string[] = [];
  for (const c of configs) {
    const target = resolve(configDir, c.path);
    let isDir = false;
    try {
      isDir = statSync(target).isDirectory();
    } catch {
      throw new ConfigError([`workflow path ${target} does not exist`]);
    }
    if (isDir) {
      for (const f of readdirSync(target).sort()) if (WORKFLOW_EXTENSIONS.has(extname(f))) files.push(join(target, f));
    } else files.push(target);
  }
  const problems: string[] = [];
  const tools: RawTool[] = [];
  const definitions = new Map<string, WorkflowDefinition>();
  for (const file of files) {
    try {
      const doc = readLocated(file);
      const wf = validateLocated<WorkflowDefinition>(doc, workflowSchema);
      const toolId = formatToolId({ source: 'workflow', workflowId: wf.id });
      wf.steps.forEach((s, i) => {
        if (!parseToolId(s.tool)) problems.push(`${placeOf(doc, `/steps/${i}/tool`)}: "${s.tool}" is not a valid toolId`);
      });
      if (!toolId) {
        problems.push(`${placeOf(doc, '/id')}: invalid workflow id`);
        continue;
      }
      definitions.set(toolId, wf);
      tools.push({
        source: 'workflow',
        toolId,
        origin: file,
        title: wf.title,
        description: wf.description,
        inputSchema: wf.inputSchema,
        outputSchema: wf.outputSchema,
        scopes: wf.scopes,
        steps: wf.steps.map((s) => s.tool),
      });
    } catch (err) {
      if (err instanceof ConfigError) problems.push(...err.problems);
      else throw err;
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return new StaticSource('workflow', 'workflow', tools, stepsCall(definitions));
}
