// A source whose tools are fixed once loaded (packs, workflows, host
// extensions): always connected, never refreshes.
import type { Source } from '../contract/descriptor.js';
import type { RawTool, SourceHealth, ToolSource } from './raw-tool.js';

export class StaticSource implements ToolSource {
  private readonly loadedAt = new Date().toISOString();
  constructor(
    readonly id: string,
    readonly kind: Source,
    private readonly list: readonly RawTool[],
  ) {}
  async start(): Promise<void> {}
  tools(): readonly RawTool[] {
    return this.list;
  }
  health(): SourceHealth {
    return { id: this.id, kind: this.kind, state: 'connected', toolCount: this.list.length, lastRefresh: this.loadedAt };
  }
  async stop(): Promise<void> {}
}
