// One read of an MCP server's whole tool list (every `tools/list` page),
// bounded: a server may page forever, repeat a cursor, send more tools than
// allowed or stop answering mid-read, and each of those ends the read with a
// reason instead of a hang or an unbounded list. Then what a read found is
// cleaned (credentials the server echoed back) and its skipped entries are
// logged. The McpSource (index.ts) decides what a read means for the
// catalog: served, kept stale, or a reconnect.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ErrorCode, McpError, ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import type { Redactor } from './redact.js';
import { type ToolCollector, showName } from './tool-filter.js';

/** Per-read cap on individually logged skipped-entry warnings. */
const MAX_ISSUE_LINES = 20;

export interface ReadResult {
  collector: ToolCollector;
  pages: number;
  /** Why the read stopped early, if it did. */
  truncated?: string;
  timedOut: boolean;
}

export interface ReadLimits {
  maxPages: number;
  maxTools: number;
  pageTimeoutMs: number;
}

/** Whether an SDK request failed by its own timeout. */
export function isTimeout(err: unknown): boolean {
  return err instanceof McpError && err.code === ErrorCode.RequestTimeout;
}

/** Every page of the list into `collector`; rejects when the first page fails, a later page's timeout ends the read early. */
export async function readToolPages(client: Client, limits: ReadLimits, collector: ToolCollector): Promise<ReadResult> {
  const { maxPages, maxTools, pageTimeoutMs } = limits;
  // A server offering only resources or prompts has no tools to read.
  if (client.getServerCapabilities()?.tools === undefined) return { collector, pages: 0, timedOut: false };
  const cursors = new Set<string>();
  let cursor: string | undefined;
  let pages = 0;
  let index = 0;
  for (;;) {
    if (pages >= maxPages) return { collector, pages, truncated: `more than maxPages (${maxPages}) pages`, timedOut: false };
    let page: Record<string, unknown>;
    try {
      page = await client.request({ method: 'tools/list', params: cursor === undefined ? {} : { cursor } }, ResultSchema, { timeout: pageTimeoutMs });
    } catch (err) {
      if (pages > 0 && isTimeout(err)) {
        return { collector, pages, truncated: `page ${pages + 1} timed out after ${pageTimeoutMs} ms`, timedOut: true };
      }
      if (isTimeout(err)) throw new Error(`tools/list timed out after ${pageTimeoutMs} ms`);
      throw err;
    }
    pages++;
    const entries = page.tools;
    if (!Array.isArray(entries)) throw new Error(`malformed tools/list result on page ${pages} (tools is not an array)`);
    for (const entry of entries) {
      // Stopped before the entry past the bound, not after collecting it: a
      // tool collected and then dropped would be one the next read's page
      // cache answers for without the source having kept it.
      if (collector.size >= maxTools) return { collector, pages, truncated: `more than maxTools (${maxTools}) tools`, timedOut: false };
      collector.add(entry, index++);
    }
    const next = page.nextCursor;
    if (next === undefined || next === null || next === '') break;
    if (typeof next !== 'string') {
      collector.issues.push(`page ${pages}: nextCursor is not a string; read ends here`);
      break;
    }
    if (cursors.has(next)) return { collector, pages, truncated: `repeated cursor on page ${pages}`, timedOut: false };
    cursors.add(next);
    cursor = next;
  }
  return { collector, pages, timedOut: false };
}

/**
 * A server that got a credential from us (env, header) may repeat it in a
 * description or a schema default: replace any such value before serving.
 */
export function scrubSecrets(redactor: Redactor, collector: ToolCollector): void {
  if (redactor.size === 0) return;
  collector.tools.forEach((tool, i) => {
    if (collector.reused.has(i)) return; // scrubbed when it was first read
    const { value, hit } = redactor.scrub(tool);
    if (!hit) return;
    collector.replace(i, value);
    collector.issues.push(`tool ${showName(collector.names[i])}: a configured secret value was redacted from its description or schema`);
  });
}

/** Warns about a read's skipped entries; the same set again on the next read is logged at debug. */
export class ReadIssues {
  private lastKey = '';

  constructor(
    private readonly log: Logger,
    private readonly serverId: string,
    private readonly redactor: Redactor,
  ) {}

  report(issues: string[]): void {
    const key = issues.join('\n');
    const repeat = key === this.lastKey;
    this.lastKey = key;
    if (issues.length === 0) return;
    const level = repeat ? 'debug' : 'warn';
    for (const issue of issues.slice(0, MAX_ISSUE_LINES)) {
      this.log[level]({ event: 'tool_skipped' }, `mcp server ${this.serverId}: ${this.redactor.text(issue)}`);
    }
    if (issues.length > MAX_ISSUE_LINES) {
      this.log[level]({ event: 'tool_skipped', more: issues.length - MAX_ISSUE_LINES }, `mcp server ${this.serverId}: ${issues.length - MAX_ISSUE_LINES} more tool-list issues not shown`);
    }
  }
}
