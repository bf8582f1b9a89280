// What a request asks for, beyond its words (docs/search.md "Ranking"): a
// question ("what reviews has this PR gotten", "who is in the #ops channel",
// "how big is the file") or a request to see something ("show me", "list")
// wants a tool that reads, not one that submits, deletes or sends; the words
// alone cannot tell "list reviews" from "submit review" when both hold
// "review". A request that says an action that changes something ("add",
// "delete", "send", ...) states no such intent. The other way round, a
// request that opens with such a verb ("comment on the issue") wants a tool
// that changes something, not the listing that shares its words.
import { words } from './text.js';

/** Words that open a question or a request to see. */
const READ_OPENERS = new Set('what which who whom whose where when how is are does do did has have show list get find look see view check display tell give'.split(' '));
/** Words that say something is to change: a request holding one is no read request, whatever its first word. */
const CHANGE_WORDS = new Set(
  (
    'add create make new delete remove drop erase destroy update edit change set rename send post publish share submit upload attach ' +
    'invite kick archive unarchive enable disable start stop cancel close open reopen lock unlock merge revoke block unblock follow unfollow ' +
    'save like star unstar pin unpin move transfer assign approve reject refund pay charge write replace mark mute invite join leave ' +
    'store put install uninstall suspend restore trigger run rerun retry schedule reply react subscribe unsubscribe'
  ).split(' '),
);

/** Verbs that open a request to make, send or change something ("comment on the issue", "add a label"). */
const CHANGE_OPENERS = new Set(
  'add create make delete remove drop erase destroy update edit change set rename send post publish share submit upload attach invite kick archive unarchive enable disable cancel close reopen lock unlock merge revoke block unblock follow unfollow star unstar pin unpin move transfer assign approve reject refund pay charge write replace mark mute join leave install uninstall suspend restore trigger rerun retry schedule reply react subscribe unsubscribe comment text email message tag label upvote'.split(' '),
);

/** True when the request opens with a verb of change (its first word, or the first after "please"): it wants a tool that changes something. */
export function wantsToChange(query: string): boolean {
  const all = words(query);
  const first = all[0] === 'please' ? all[1] : all[0];
  return first !== undefined && CHANGE_OPENERS.has(first);
}

/** True when the request only wants to read: it opens as a question or a request to see, and names no change. */
export function wantsToRead(query: string): boolean {
  const all = words(query);
  if (all.length === 0 || !READ_OPENERS.has(all[0])) return false;
  return !all.some((w) => CHANGE_WORDS.has(w));
}
