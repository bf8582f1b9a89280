// The fixed split of the search benchmark's tasks (docs/search.md "Measured
// quality"): ranking is tuned on one part and measured on the other.

/**
 * Tasks are split by a fixed rule, so ranking can be tuned on one part and
 * measured on the other: a task whose text's 32-bit FNV-1a hash is divisible
 * by `every` is held out, the rest is the tuning set. The benchmark of
 * bench/search-tasks/*.json holds out every second (`every` 2, about half);
 * the first round's tasks (bench/search-tasks/round-1/) every third. Adding a
 * task never moves another between the sets.
 */
export function splitOf(task: string, every = 2): 'tuning' | 'held-out' {
  let h = 0x811c9dc5;
  for (let i = 0; i < task.length; i++) h = Math.imul(h ^ task.charCodeAt(i), 0x01000193) >>> 0;
  return h % every === 0 ? 'held-out' : 'tuning';
}
