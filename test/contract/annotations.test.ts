import assert from 'node:assert/strict';
import { test } from 'node:test';
import { deriveAnnotations } from '../../src/contract/annotations.js';
import { EGRESS_POSTURES, REPLAY_POLICIES, SAFETY_TIERS, type ToolDescriptor } from '../../src/contract/descriptor.js';
import { errorsOf, validateV1, validateV2 } from '../helpers/schemas.js';

const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;

// The whole input space: 4 tiers x 4 replay postures (incl. absent) x 5 egress postures (incl. absent).
const cases = SAFETY_TIERS.flatMap((tier) =>
  [undefined, ...REPLAY_POLICIES].flatMap((replay) => [undefined, ...EGRESS_POSTURES].map((egress) => ({ tier, replay, egress }))),
);

function descriptorFor(c: (typeof cases)[number]): ToolDescriptor {
  const d: ToolDescriptor = { toolId: 'x-host-t-tool', source: 'host-extension', safetyTier: c.tier };
  if (c.replay) d.replayPolicy = c.replay;
  if (c.egress) d.egress = c.egress;
  d.annotations = deriveAnnotations(c.tier, c.replay, c.egress);
  return d;
}

test('the table is covered: 80 combinations', () => {
  assert.equal(cases.length, 80);
});

test('derived hints follow the seed, read straight from its sentences', () => {
  for (const c of cases) {
    const a = deriveAnnotations(c.tier, c.replay, c.egress);
    assert.equal(a.readOnlyHint, ['pure', 'read'].includes(c.tier));
    assert.equal(a.destructiveHint, ['write', 'exec'].includes(c.tier));
    assert.equal(a.idempotentHint, c.replay === 'deterministic' || c.replay === 'idempotent');
    assert.equal(a.openWorldHint, c.egress !== 'none');
    assert.deepEqual(Object.keys(a).sort(), [...HINTS].sort());
  }
});

test('every derived descriptor validates against the v2 schema, and without annotations against v1', () => {
  for (const c of cases) {
    const d = descriptorFor(c);
    assert.ok(validateV2(d), `${JSON.stringify(c)} ${errorsOf(validateV2)}`);
    const { annotations: _a, ...v1 } = d;
    assert.ok(validateV1(v1), errorsOf(validateV1));
  }
});

test('each flipped or missing hint is refused by the v2 schema', () => {
  for (const c of cases) {
    const d = descriptorFor(c);
    for (const hint of HINTS) {
      const flipped = { ...d, annotations: { ...d.annotations!, [hint]: !d.annotations![hint] } };
      assert.equal(validateV2(flipped), false, `flipped ${hint} accepted for ${JSON.stringify(c)}`);
      const missing: Record<string, unknown> = { ...d.annotations! };
      delete missing[hint];
      assert.equal(validateV2({ ...d, annotations: missing }), false, `missing ${hint} accepted for ${JSON.stringify(c)}`);
    }
    assert.equal(validateV2({ ...d, annotations: { ...d.annotations!, title: 'x' } }), false, 'title inside annotations accepted');
  }
});

test('exec on any source but host-extension is refused by both schemas', () => {
  for (const source of ['node-pack', 'workflow', 'mcp', 'connector'] as const) {
    const d = { toolId: 't:x', source, safetyTier: 'exec', annotations: deriveAnnotations('exec', undefined, undefined) };
    assert.equal(validateV2(d), false);
    assert.equal(validateV1({ toolId: 't:x', source, safetyTier: 'exec' }), false);
  }
});
