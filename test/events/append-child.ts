// Child process for two-writers.test.ts (not a test itself): opens the log
// named in argv, waits for the shared start time, then runs its plan: waves
// of concurrent appends (each one tenant's `n` events), a wave after the
// previous one resolved. Prints what each append was given, then exits.
import { EventLog, type AppendInput } from '../../src/events/sqlite/log.js';

interface Batch {
  tenant: string;
  n: number;
}

const [file, startAtText, planText] = process.argv.slice(2);
const plan = JSON.parse(planText) as Batch[][];
const log = EventLog.open(file);
const wait = Number(startAtText) - Date.now();
if (wait > 0) await new Promise((r) => setTimeout(r, wait));
const results: Array<{ tenant: string; sequences: number[]; eventIds: string[] }> = [];
for (const wave of plan) {
  const stored = await Promise.all(
    wave.map((batch) => {
      const events: AppendInput[] = Array.from({ length: batch.n }, (_, i) => {
        const sessionId = `${process.pid}-${results.length}-${i}`;
        return { type: 'tool.session.opened', tenant: batch.tenant, principal: 'p', sessionId, payload: { sessionId, toolId: 't' } };
      });
      return log.append(events);
    }),
  );
  wave.forEach((batch, i) => results.push({ tenant: batch.tenant, sequences: stored[i].map((e) => e.sequence), eventIds: stored[i].map((e) => e.eventId) }));
}
await log.close();
process.stdout.write(JSON.stringify(results));
