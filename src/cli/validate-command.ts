// `toolhost validate`: loads a config exactly as `serve` would (so every
// start-up error shows), then prints per tenant how many tools each source
// contributes, without opening a port.
import pino from 'pino';
import { startHost } from '../host/host.js';

export async function runValidate(configFile: string): Promise<string> {
  const host = await startHost(configFile, { logger: pino({ level: 'silent' }), startDeadlineMs: 5_000 });
  try {
    const snapshot = host.store.current();
    const lines = [`${host.loaded.file}: valid, ${snapshot.entries.length} tools from ${host.sources.length} sources`];
    for (const tenant of Object.keys(host.loaded.config.tenants).sort()) {
      const view = snapshot.viewFor({ tenant, scopes: new Set(snapshot.entries.flatMap((e) => e.tool.descriptor.auth?.scopes ?? [])) });
      const bySource = new Map<string, number>();
      for (const e of view.entries) bySource.set(e.tool.descriptor.source, (bySource.get(e.tool.descriptor.source) ?? 0) + 1);
      const parts = [...bySource.entries()].sort().map(([s, n]) => `${s} ${n}`);
      lines.push(`  tenant ${tenant}: ${view.entries.length} tools (${parts.join(', ') || 'none'}) with every scope held`);
    }
    for (const h of host.sourceHealth()) if (h.state !== 'connected') lines.push(`  warning: source ${h.id} is ${h.state}${h.lastError ? `: ${h.lastError}` : ''}`);
    return `${lines.join('\n')}\n`;
  } finally {
    await host.stop();
  }
}
