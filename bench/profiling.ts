// CPU profiles of a bench child over exactly the spans the orchestrator asks
// for (BENCH_PROFILE=DIR): { type: 'profile-start' } / { type: 'profile-stop', file }.
// BENCH_PROFILE_HEAP=1 samples allocations instead (every object allocated,
// garbage included: where the GC's work comes from), written as a .heapprofile.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';

let session: Session | undefined;
const heap = process.env.BENCH_PROFILE_HEAP === '1';

/** Handles a profile message; true when the message was one. */
export function handleProfileMessage(msg: { type: string; file?: string }): boolean {
  if (msg.type !== 'profile-start' && msg.type !== 'profile-stop') return false;
  void (async () => {
    if (msg.type === 'profile-start') {
      session = new Session();
      session.connect();
      if (heap) {
        await session.post('HeapProfiler.enable');
        await session.post('HeapProfiler.startSampling', { samplingInterval: 16384, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
      } else {
        await session.post('Profiler.enable');
        await session.post('Profiler.start');
      }
    } else if (session) {
      if (heap) {
        const { profile } = await session.post('HeapProfiler.stopSampling');
        writeFileSync(msg.file!.replace(/\.cpuprofile$/, '.heapprofile'), JSON.stringify(profile));
      } else {
        const { profile } = await session.post('Profiler.stop');
        writeFileSync(msg.file!, JSON.stringify(profile));
      }
      session.disconnect();
      session = undefined;
    }
    process.send?.({ type: msg.type });
  })();
  return true;
}
