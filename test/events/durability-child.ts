// Child process for durability.test.ts (not a test itself): opens the log
// named in argv, appends whole tool sessions concurrently, prints their
// session ids and how the log grouped its commits, then "done" once every
// append has resolved, then keeps running until the parent SIGKILLs it. It
// never closes the log, so nothing is checkpointed or flushed by a clean
// shutdown.
import { EventLog } from '../../src/events/sqlite/log.js';
import { ToolSession } from '../../src/events/session.js';

const [file, countText] = process.argv.slice(2);
const log = EventLog.open(file);
// Concurrent sessions, each committing its write-ahead and answer records as a
// call does, so their commits are grouped (docs/architecture.md "Group commit").
const ids = await Promise.all(
  Array.from({ length: Number(countText ?? '1') }, async () => {
    const s = ToolSession.open(log, { tenant: 'acme', principal: 'acme-agent' }, 'workflow:shout');
    const c = s.called('openwop:text.uppercase');
    await s.commit({ writeAhead: true });
    s.returned(c, 'openwop:text.uppercase', 'ok', 5);
    await s.finish('completed');
    return s.sessionId;
  }),
);
const { groups, appends } = log.groupStats();
process.stdout.write(`${JSON.stringify({ ids, groups, appends })}\ndone\n`);
setInterval(() => {}, 1000); // stay alive: only SIGKILL ends this process
