import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Policy } from '../../src/classify/policy.js';
import { buildCatalog } from '../../src/catalog/build.js';
import { classifyFromSteps } from '../../src/catalog/workflow-classification.js';
import type { RawTool } from '../../src/sources/raw-tool.js';

const mcp = (name: string): RawTool => ({ source: 'mcp', toolId: `mcp:srv.${name}`, origin: 'mcp server srv' });

test('an MCP tool no rule classifies is write, whatever else is configured', () => {
  const policy = new Policy({ rules: [{ match: 'mcp:other.*', safetyTier: 'read' }] });
  const { classification } = policy.classify(mcp('delete_everything'));
  assert.equal(classification.safetyTier, 'write');
  assert.equal(classification.replayPolicy, undefined);
});

test('rules apply in order, first match wins per field, then derived, then source defaults', () => {
  const policy = new Policy({
    defaults: { connector: { egress: 'host-mediated', costHint: 'low', safetyTier: 'write' } },
    rules: [
      { match: 'connector:crm.get*', safetyTier: 'read' },
      { match: 'connector:crm.*', safetyTier: 'write', replayPolicy: 'idempotent', scopes: ['crm'] },
    ],
  });
  const r = policy.classify({ toolId: 'connector:crm.getLead', source: 'connector', derived: { replayPolicy: 'non-deterministic', latencyHint: 'high' } });
  assert.deepEqual(r.classification, { safetyTier: 'read', replayPolicy: 'idempotent', latencyHint: 'high', egress: 'host-mediated', costHint: 'low' });
  assert.deepEqual(r.scopes, ['crm']);
  const d = policy.classify({ toolId: 'connector:crm.deleteLead', source: 'connector', derived: { safetyTier: 'read' } });
  assert.equal(d.classification.safetyTier, 'write');
});

test('workflow from steps: most severe tier, replay only as good as every step, widest egress', () => {
  assert.deepEqual(classifyFromSteps([{ safetyTier: 'pure', replayPolicy: 'deterministic', egress: 'none' }]), {
    safetyTier: 'pure',
    replayPolicy: 'deterministic',
    egress: 'none',
  });
  assert.deepEqual(
    classifyFromSteps([
      { safetyTier: 'read', replayPolicy: 'deterministic', egress: 'safe-fetch' },
      { safetyTier: 'write', replayPolicy: 'idempotent', egress: 'host-mediated', approval: 'conditional' },
    ]),
    { safetyTier: 'write', replayPolicy: 'idempotent', egress: 'host-mediated', approval: 'conditional' },
  );
  // An exec step makes the workflow write with approval always; unknown egress stays unknown.
  assert.deepEqual(classifyFromSteps([{ safetyTier: 'exec' }, { safetyTier: 'pure', replayPolicy: 'deterministic', egress: 'none' }]), {
    safetyTier: 'write',
    replayPolicy: 'non-deterministic',
    approval: 'always',
  });
});

test('a rule overrides the classification derived from a workflow\'s steps', () => {
  const tools: RawTool[] = [
    { source: 'host-extension', toolId: 'x-host-a-run', origin: 'cfg' },
    { source: 'workflow', toolId: 'workflow:w', origin: 'w.yaml', steps: ['x-host-a-run'] },
  ];
  const policy = new Policy({ rules: [{ match: 'x-host-a-run', safetyTier: 'exec' }, { match: 'workflow:w', approval: 'never' }] });
  const built = buildCatalog(tools, policy);
  assert.deepEqual(built.problems, []);
  const wf = built.tools.find((t) => t.descriptor.toolId === 'workflow:w')!;
  assert.equal(wf.descriptor.safetyTier, 'write');
  assert.equal(wf.descriptor.approval, 'never');
  assert.equal(built.tools.find((t) => t.descriptor.toolId === 'x-host-a-run')!.descriptor.safetyTier, 'exec');
});

test('exec on a non-host-extension tool is a fatal problem and is never served as exec', () => {
  const built = buildCatalog([mcp('shell')], new Policy({ rules: [{ match: 'mcp:*', safetyTier: 'exec' }] }));
  assert.equal(built.problems.length, 1);
  assert.ok(built.problems[0].fatal);
  assert.equal(built.tools[0].descriptor.safetyTier, 'write');
});

test('a missing step on a configured MCP server withholds the workflow without failing the build', () => {
  const wf: RawTool = { source: 'workflow', toolId: 'workflow:w', origin: 'w.yaml', steps: ['mcp:srv.not_yet'] };
  const built = buildCatalog([wf], new Policy(), { isMissingStepFatal: (id) => !id.startsWith('mcp:srv.') });
  assert.deepEqual(built.problems, []);
  assert.equal(built.tools.length, 0);
  assert.match(built.warnings[0], /withheld/);
});

test('a rebuild given the same RawTool objects keeps their tools, and says their problems and warnings again', () => {
  const shell = mcp('shell');
  const leaky: RawTool = { ...mcp('leaky'), inputSchema: { type: 'object', properties: { k: { type: 'string', default: 'Bearer abcdefgh12345678' } } } };
  const plain = mcp('plain');
  const policy = new Policy({ rules: [{ match: 'mcp:srv.shell', safetyTier: 'exec' }] });
  const first = buildCatalog([shell, leaky, plain], policy);
  const previous = new Map(first.tools.map((t) => [t.descriptor.toolId, t]));
  const changed: RawTool = { ...plain, description: 'now described' };
  const second = buildCatalog([shell, leaky, changed], policy, { previous: { tools: first.tools, tool: (id) => previous.get(id) } });
  for (const t of second.tools) {
    const before = previous.get(t.descriptor.toolId)!;
    if (t.raw === changed) assert.notEqual(t, before);
    else assert.equal(t, before, `${t.descriptor.toolId} reused as it was`);
  }
  assert.equal(second.tools.find((t) => t.raw === changed)?.descriptor.description, 'now described');
  assert.deepEqual(second.problems, first.problems, 'the refused exec tier is reported on every build');
  assert.deepEqual(second.warnings, first.warnings, 'so is the removed credential');
  assert.equal(first.problems.length, 1);
  assert.equal(first.warnings.length, 1);
  assert.equal(second.tools.find((t) => t.raw === shell)?.descriptor.safetyTier, 'write');
});
