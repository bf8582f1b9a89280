// MCP-safe tool names for the MCP front door (docs/mcp.md "Names"): MCP
// clients and LLM providers accept roughly `[A-Za-z0-9_-]{1,64}`, toolIds
// hold `:` `.` `/`. Each tool has readable forms, most complete first
// (tool-name-forms.ts); it gets the most complete one that is short enough
// and no other tool of the same view claims, and a hash suffix only when
// every readable form is taken. The front door names one caller view's ids
// at a time (CallerView.mcpNames): a tool the caller cannot see never renames
// one of its tools. The result is a function of the set of tools, never of
// the order they were read in. Reversal goes through the same map, never by
// parsing the name.
import { createHash } from 'node:crypto';
import { fullForm, MAX_MCP_NAME_LENGTH, readableForms, type McpNamingInput, type NameForm } from './tool-name-forms.js';

export { MAX_MCP_NAME_LENGTH, readableMcpName, type McpNamingInput } from './tool-name-forms.js';

const HASH_RANK = 100;

export interface McpNameMap {
  byToolId: ReadonlyMap<string, string>;
  byName: ReadonlyMap<string, string>;
}

/** Hashed forms of growing hash length: a collision of 8 hex characters moves on to 12, and so on. */
function hashedForms(toolId: string, full: string): NameForm[] {
  const hash = createHash('sha256').update(toolId).digest('hex');
  const forms: NameForm[] = [];
  for (let chars = 8; chars <= 40; chars += 4) {
    forms.push({ name: `${full.slice(0, MAX_MCP_NAME_LENGTH - chars - 1)}_${hash.slice(0, chars)}`, rank: HASH_RANK + chars });
  }
  return forms;
}

const asInput = (tool: string | McpNamingInput): McpNamingInput => (typeof tool === 'string' ? { toolId: tool } : tool);

/**
 * Names every tool. Rounds over the whole set: where several tools hold the
 * same name, the one holding it in its most complete form keeps it (when it
 * alone has that rank) and the others move on to their next form; on a tie
 * all of them move on. Each round moves at least one tool, and forms are
 * finite, so it ends; nothing in it depends on input order.
 */
export function assignMcpNames(tools: readonly (string | McpNamingInput)[]): McpNameMap {
  const inputs = new Map<string, McpNamingInput>();
  for (const t of tools) {
    const input = asInput(t);
    inputs.set(input.toolId, input);
  }
  const ids = [...inputs.keys()].sort();
  // Most tools keep their whole readable name: the other forms are made only
  // for a tool that has to move, and hashed ones only when readable ones run out.
  const complete = new Array<boolean>(ids.length).fill(false);
  const forms = ids.map((id, i): NameForm[] => {
    const input = inputs.get(id)!;
    const full = fullForm(input);
    if (full.length <= MAX_MCP_NAME_LENGTH && full.length > 0) return [{ name: full, rank: 0 }];
    complete[i] = true;
    const readable = readableForms(input);
    return readable.length > 0 ? readable : hashedForms(id, full);
  });
  const level = new Array<number>(ids.length).fill(0);
  const canMove = (i: number): boolean => {
    if (!complete[i]) {
      complete[i] = true;
      forms[i] = readableForms(inputs.get(ids[i])!);
    }
    if (level[i] + 1 < forms[i].length) return true;
    if (forms[i][forms[i].length - 1].rank >= HASH_RANK) return false;
    forms[i] = [...forms[i], ...hashedForms(ids[i], fullForm(inputs.get(ids[i])!))];
    return true;
  };
  for (;;) {
    const holders = new Map<string, number[]>();
    ids.forEach((_, i) => {
      const name = forms[i][level[i]].name;
      const list = holders.get(name);
      if (list === undefined) holders.set(name, [i]);
      else list.push(i);
    });
    const moving: number[] = [];
    for (const list of holders.values()) {
      if (list.length < 2) continue;
      const ranks = list.map((i) => forms[i][level[i]].rank);
      const best = Math.min(...ranks);
      const keeper = ranks.filter((r) => r === best).length === 1 ? list[ranks.indexOf(best)] : -1;
      for (const i of list) if (i !== keeper) moving.push(i);
    }
    const movable = moving.filter(canMove);
    if (movable.length === 0) break;
    for (const i of movable) level[i]++;
  }
  const byToolId = new Map<string, string>();
  const byName = new Map<string, string>();
  ids.forEach((id, i) => {
    const name = forms[i][level[i]].name;
    if (byName.has(name)) throw new Error(`MCP names: ${id} and ${byName.get(name)} share every name form`);
    byToolId.set(id, name);
    byName.set(name, id);
  });
  return { byToolId, byName };
}
