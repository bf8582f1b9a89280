// A source whose tools are fixed once loaded (packs, workflows, host
// extensions): always connected, never refreshes, owns exactly the tools it
// lists. How a tool is called is the adapter's, handed in as `call`.
import type { Source } from '../contract/descriptor.js';
import type { DispatchOutcome } from './call-result.js';
import type { InvokeContext, RawTool, SourceHealth, ToolSource } from './raw-tool.js';

export type StaticCall = (toolId: string, args: Record<string, unknown>, context: InvokeContext) => Promise<DispatchOutcome>;

export class StaticSource implements ToolSource {
  private readonly loadedAt = new Date().toISOString();
  private readonly ids: ReadonlySet<string>;
  constructor(
    readonly id: string,
    readonly kind: Source,
    private readonly list: readonly RawTool[],
    private readonly call: StaticCall,
  ) {
    this.ids = new Set(list.map((t) => t.toolId));
  }
  async start(): Promise<void> {}
  tools(): readonly RawTool[] {
    return this.list;
  }
  health(): SourceHealth {
    return { id: this.id, kind: this.kind, state: 'connected', toolCount: this.list.length, lastRefresh: this.loadedAt };
  }
  async stop(): Promise<void> {}
  owns(toolId: string): boolean {
    return this.ids.has(toolId);
  }
  invoke(toolId: string, args: Record<string, unknown>, context: InvokeContext): Promise<DispatchOutcome> {
    return this.call(toolId, args, context);
  }
}
