// Two processes appending to one SQLite event log at once, each through its
// own group commit (docs/architecture.md "The SQLite event log": "Streams", "Group commit"): every
// tenant's stream stays gap-free and duplicate-free from 0, each append's
// events get consecutive sequences in the order given, and every process is
// told exactly the sequences that were stored. fast-check picks the plans.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { test } from 'node:test';
import fc from 'fast-check';
import { EventLog } from '../../src/events/sqlite/log.js';
import { logFile } from './helpers.js';
import { programArgs } from '../helpers/fixture-command.js';

const CHILD = fileURLToPath(new URL('./append-child.ts', import.meta.url));
const run = promisify(execFile);

type Plan = Array<Array<{ tenant: string; n: number }>>;
type Report = Array<{ tenant: string; sequences: number[]; eventIds: string[] }>;

const batch = fc.record({ tenant: fc.constantFrom('acme', 'globex', 'initech'), n: fc.integer({ min: 1, max: 6 }) });
const plan: fc.Arbitrary<Plan> = fc.array(fc.array(batch, { minLength: 1, maxLength: 30 }), { minLength: 1, maxLength: 6 });

async function writer(file: string, startAt: number, p: Plan): Promise<Report> {
  const { stdout } = await run(process.execPath, [...programArgs(CHILD), file, String(startAt), JSON.stringify(p)], { timeout: 60_000 });
  return JSON.parse(stdout) as Report;
}

test('property: two processes appending concurrently leave every tenant stream gap-free, each append contiguous', { timeout: 300_000 }, async () => {
  await fc.assert(
    fc.asyncProperty(plan, plan, async (planA, planB) => {
      const file = logFile();
      EventLog.open(file).close(); // created once, so neither child races the other to create the schema
      // Both start at the same moment, once both have loaded.
      const startAt = Date.now() + 1500;
      const [a, b] = await Promise.all([writer(file, startAt, planA), writer(file, startAt, planB)]);
      const log = EventLog.open(file);
      try {
        const told = new Map<string, string>();
        for (const r of [...a, ...b]) {
          for (let i = 1; i < r.sequences.length; i++) assert.equal(r.sequences[i], r.sequences[i - 1] + 1, 'one append, consecutive sequences');
          r.eventIds.forEach((id, i) => told.set(`${r.tenant}:${r.sequences[i]}`, id));
        }
        for (const tenant of ['acme', 'globex', 'initech']) {
          const expected = [...planA, ...planB].flat().filter((x) => x.tenant === tenant).reduce((sum, x) => sum + x.n, 0);
          const stored = await log.readAfter(tenant, -1, 10_000);
          assert.deepEqual(stored.map((e) => e.sequence), [...Array(expected).keys()], `${tenant}: 0..${expected - 1}, no gap, no duplicate`);
          for (const e of stored) assert.equal(told.get(`${tenant}:${e.sequence}`), e.eventId, 'the writer was told the stored event');
        }
      } finally {
        await log.close();
      }
    }),
    { numRuns: 6 },
  );
});
