// A node-pack source whose tool list a search test replaces between builds.
import type { RawTool, ToolSource } from '../../src/sources/raw-tool.js';

export class MutableSource implements ToolSource {
  readonly id = 'node-pack:test';
  readonly kind = 'node-pack' as const;
  constructor(public list: RawTool[]) {}
  async start(): Promise<void> {}
  tools(): readonly RawTool[] {
    return this.list;
  }
  health() {
    return { id: this.id, kind: this.kind, state: 'connected' as const, toolCount: this.list.length };
  }
  async stop(): Promise<void> {}
  owns(): boolean {
    return false;
  }
  invoke(): Promise<never> {
    return Promise.reject(new Error('a search test calls no tool'));
  }
}
