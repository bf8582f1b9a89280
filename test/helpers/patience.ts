// How long a test waits before it calls something stuck, and the one poll
// loop the tests wait with. A deadline in a test only bounds a failure: on a
// quiet machine everything it waits for happens long before it, but on a
// busy one (the suite beside other work on two cores) a child process that
// needs a second of CPU to start can take ten. So every deadline a test sets
// for something it expects to happen is stretched by SLACK, which grows with
// how busy the machine was when the test process started; a test that waits
// for a timeout to fire keeps its exact figure.
import os from 'node:os';

function slackOf(env: NodeJS.ProcessEnv): number {
  const set = Number(env.TOOLHOST_TEST_SLACK);
  if (Number.isFinite(set) && set >= 1) return set;
  // The 1-minute load average per core: 1 is every core busy; the suite alone keeps it near 1.
  const busy = os.loadavg()[0] / os.availableParallelism();
  return Math.min(8, Math.max(1.5, busy * 1.5));
}

/** The factor every expected-event deadline is stretched by (`TOOLHOST_TEST_SLACK` sets it). */
export const SLACK = slackOf(process.env);

/** A deadline of `ms` on a quiet machine, stretched for this one. */
export const patient = (ms: number): number => Math.round(ms * SLACK);

/**
 * Polls `probe` (which may ask over the network) until it returns a truthy
 * value, and returns that value; throws naming `what` once `patient(ms)` has
 * passed.
 */
export async function waitFor<T>(probe: () => T | Promise<T>, ms = 5000, what = 'condition', stepMs = 10): Promise<NonNullable<T>> {
  const deadline = Date.now() + patient(ms);
  for (;;) {
    const value = await probe();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out after ${patient(ms)} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, stepMs));
  }
}

/** The same poll, answering whether it held rather than throwing. */
export async function eventually(probe: () => Promise<boolean> | boolean, ms = 30_000, stepMs = 50): Promise<boolean> {
  const deadline = Date.now() + patient(ms);
  for (;;) {
    if (await probe()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, stepMs));
  }
}
