// CPU profiles of a bench child over exactly the spans the orchestrator asks
// for (BENCH_PROFILE=DIR): { type: 'profile-start' } / { type: 'profile-stop', file }.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';

let session: Session | undefined;

/** Handles a profile message; true when the message was one. */
export function handleProfileMessage(msg: { type: string; file?: string }): boolean {
  if (msg.type !== 'profile-start' && msg.type !== 'profile-stop') return false;
  void (async () => {
    if (msg.type === 'profile-start') {
      session = new Session();
      session.connect();
      await session.post('Profiler.enable');
      await session.post('Profiler.start');
    } else if (session) {
      const { profile } = await session.post('Profiler.stop');
      writeFileSync(msg.file!, JSON.stringify(profile));
      session.disconnect();
      session = undefined;
    }
    process.send?.({ type: msg.type });
  })();
  return true;
}
