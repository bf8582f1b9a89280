// Child process for durability.test.ts (not a test itself): opens the log
// named in argv, appends whole tool sessions, prints their session ids and
// "done", then keeps running until the parent SIGKILLs it. It never closes
// the log, so nothing is checkpointed or flushed by a clean shutdown.
import { EventLog } from '../../src/events/log.js';
import { ToolSession } from '../../src/events/session.js';

const [file, countText] = process.argv.slice(2);
const log = EventLog.open(file);
const ids: string[] = [];
for (let i = 0; i < Number(countText ?? '1'); i++) {
  const s = ToolSession.open(log, { tenant: 'acme', principal: 'acme-agent' }, 'workflow:shout');
  const c = s.called('openwop:text.uppercase');
  s.returned(c, 'openwop:text.uppercase', 'ok', 5);
  s.close('completed');
  ids.push(s.sessionId);
}
process.stdout.write(`${JSON.stringify(ids)}\ndone\n`);
setInterval(() => {}, 1000); // stay alive: only SIGKILL ends this process
