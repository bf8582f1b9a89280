// Sources as a prior in tool search (docs/search.md "Sources as a prior"):
// a request that names a product ("my Notion workspace", "credit left on my
// Twilio account") is about that product's tools, whatever other catalog
// shares the words. A source is named by the words of its id (operators name
// a connector or server after what it reaches: `stripe`, `twilio-verify`)
// and of the title its upstream gives itself; only words rarer than everyday
// English count, so a source called `everything` or `fs` is never favoured
// by "list everything".
import { isStopword, words } from './text.js';
import type { WordVectors } from './word-vectors.js';

/** The source a tool belongs to, as list_sources names it: the toolId before its first `.` (`connector:github`), else the tool's kind (a host extension's toolId has no source part). */
export function sourceIdOf(toolId: string, kind: string): string {
  const dot = toolId.indexOf('.');
  return dot < 0 ? kind : toolId.slice(0, dot);
}

/** A word this common in English (frequency rank) names no product. */
const COMMON_RANK = 3000;
/** Words never taken as a product's name: they are in every API's title. */
const GENERIC = new Set(['api', 'apis', 'rest', 'web', 'server', 'mcp', 'connector', 'v1', 'v2', 'v3', 'service', 'openapi', 'http', 'tools', 'tool']);

/** The sources of one index, by number; each with the words that name it. */
export class SourceTable {
  private readonly byId = new Map<string, number>();
  private readonly names: Set<string>[] = [];

  /** The number of the source with this id (the toolId's part before the first `.`), made on first sight. */
  numberOf(sourceId: string, title?: string): number {
    let n = this.byId.get(sourceId);
    if (n === undefined) {
      n = this.names.length;
      this.byId.set(sourceId, n);
      const id = sourceId.slice(sourceId.indexOf(':') + 1);
      this.names.push(new Set([...words(id), ...words(title ?? '')].filter((w) => w.length > 2 && !isStopword(w) && !GENERIC.has(w))));
    }
    return n;
  }

  /** The number of a source seen before, if any. */
  find(sourceId: string): number | undefined {
    return this.byId.get(sourceId);
  }

  /** The sources a request names, by number (empty when it names none). */
  named(query: string, vectors: WordVectors | undefined): Set<number> {
    const out = new Set<number>();
    const q = new Set(words(query));
    this.names.forEach((names, n) => {
      for (const w of names) {
        if (!q.has(w)) continue;
        const rank = vectors?.rank(w);
        if (rank === undefined || rank >= COMMON_RANK) out.add(n);
      }
    });
    return out;
  }
}
