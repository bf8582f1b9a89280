// The fixed split of the search benchmark's tasks (docs/search.md "Measured
// quality"): ranking is tuned on one part and measured on the other.

/**
 * Tasks are split by a fixed rule, so ranking can be tuned on one part and
 * measured on the other: a task whose text's FNV-1a hash is divisible by 3 is
 * held out (about a third), the rest is the tuning set. Adding a task never
 * moves another between the sets.
 */
export function splitOf(task: string): 'tuning' | 'held-out' {
  let h = 0x811c9dc5;
  for (let i = 0; i < task.length; i++) h = Math.imul(h ^ task.charCodeAt(i), 0x01000193) >>> 0;
  return h % 3 === 0 ? 'held-out' : 'tuning';
}
