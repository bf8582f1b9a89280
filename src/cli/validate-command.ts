// `toolhost validate`: loads a config exactly as `serve` would (so every
// start-up error shows), then looks for the mistakes that would pass silently
// at start: a source that did not load, a connector secret that is not set, a
// tenant glob or policy rule that matches no tool. Each kind of finding is an
// error or a warning (flags and `--strict` choose); errors exit 1. With
// `--principal` or `--key` it prints what one caller will see.
import { Writable } from 'node:stream';
import pino from 'pino';
import { hashApiKey } from '../auth/api-keys.js';
import { principalKey, type Principal } from '../auth/principal.js';
import { compileGlobs } from '../contract/glob.js';
import { startHost, type Host } from '../host/host.js';
import { resolveConnectorSecret, type ConnectorSourceConfig } from '../sources/connector/index.js';
import { placeOf } from '../util/validated-yaml.js';
import type { FindingKind } from './choices.js';


/** Outside `--strict`, these are errors and the rest warnings. */
const ERRORS_BY_DEFAULT: ReadonlySet<FindingKind> = new Set(['source-failed', 'secret-unset']);
const STDERR_TAIL_LINES = 5;

export interface ValidateOptions {
  /** Every finding is an error (the default when the `CI` environment variable is set). */
  strict?: boolean;
  /** Kinds made errors, or warnings, whatever `strict` says. */
  errors?: readonly FindingKind[];
  warnings?: readonly FindingKind[];
  /** Print the effective tools of this principal id (from `principals`), or of the principal this API key belongs to. */
  principal?: string;
  key?: string;
  env?: NodeJS.ProcessEnv;
  /**
   * How long to wait for sources that are still starting. A source that has
   * connected or failed stops the wait early, so this only bounds a slow one
   * (a busy machine, an upstream that takes long to answer).
   */
  waitMs?: number;
}

/** Long enough for a stdio upstream started through a loader on a busy machine; each source's own connect timeout still fails it earlier. */
export const DEFAULT_VALIDATE_WAIT_MS = 30_000;

export interface ValidateResult {
  output: string;
  exitCode: number;
}

interface Finding {
  kind: FindingKind;
  text: string;
}

/** Keeps each upstream's last stderr lines (the MCP source logs them at debug level) to show beside its failure. */
function stderrCollector(): { logger: pino.Logger; tail(sourceId: string): string[] } {
  const lines = new Map<string, string[]>();
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const text of String(chunk).split('\n')) {
        if (text === '') continue;
        try {
          const entry = JSON.parse(text) as { event?: string; source?: string; line?: string };
          if (entry.event === 'stderr' && entry.source !== undefined && entry.line !== undefined) {
            const list = lines.get(entry.source) ?? [];
            list.push(entry.line);
            if (list.length > STDERR_TAIL_LINES) list.shift();
            lines.set(entry.source, list);
          }
        } catch {
          // not a log line of ours
        }
      }
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, sink), tail: (id) => lines.get(id) ?? [] };
}

async function findingsOf(host: Host, stderrTail: (sourceId: string) => string[], env: NodeJS.ProcessEnv): Promise<Finding[]> {
  const findings: Finding[] = [];
  const { config, doc, dir } = host.loaded;
  for (const h of host.sourceHealth()) {
    if (h.state === 'connected') continue;
    const tail = stderrTail(h.id);
    const stderr = tail.length > 0 ? `\n      its stderr ended with:\n${tail.map((l) => `        ${l}`).join('\n')}` : '';
    findings.push({ kind: 'source-failed', text: `source ${h.id} is ${h.state}${h.lastError ? `: ${h.lastError}` : ''}${stderr}` });
  }
  for (const [i, connector] of ((config.sources?.connectors ?? []) as unknown as ConnectorSourceConfig[]).entries()) {
    if (!connector.auth) continue;
    try {
      await resolveConnectorSecret(connector, { env, configDir: dir });
    } catch (err) {
      findings.push({ kind: 'secret-unset', text: `${placeOf(doc, `/sources/connectors/${i}/auth/secret`)}: ${(err as Error).message}; its tools will answer "not configured"` });
    }
  }
  const toolIds = host.store.current().entries.map((e) => e.tool.descriptor.toolId);
  const matchesNothing = (glob: string) => {
    const matches = compileGlobs([glob]);
    return !toolIds.some(matches);
  };
  for (const [tenant, t] of Object.entries(config.tenants)) {
    t.tools.forEach((glob, i) => {
      if (matchesNothing(glob)) findings.push({ kind: 'glob-unmatched', text: `${placeOf(doc, `/tenants/${tenant}/tools/${i}`)}: "${glob}" matches no tool` });
    });
  }
  (config.policy?.rules ?? []).forEach((rule, r) => {
    const globs = Array.isArray(rule.match) ? rule.match : [rule.match];
    globs.forEach((glob, i) => {
      const pointer = Array.isArray(rule.match) ? `/policy/rules/${r}/match/${i}` : `/policy/rules/${r}/match`;
      if (matchesNothing(glob)) findings.push({ kind: 'rule-unmatched', text: `${placeOf(doc, pointer)}: "${glob}" matches no tool` });
    });
  });
  return findings;
}

function callerOf(host: Host, options: ValidateOptions): Principal | string {
  const entries = host.loaded.config.principals ?? [];
  const entry = options.key !== undefined ? entries.find((p) => p.keyHash === hashApiKey(options.key!)) : entries.find((p) => p.id === options.principal);
  if (!entry) return options.key !== undefined ? 'no principal in the config holds that key' : `no principal "${options.principal}" in the config`;
  return { id: entry.id, tenant: entry.tenant, scopes: new Set(entry.scopes ?? []), kind: 'api-key', key: principalKey('api-key', entry.tenant, entry.id) };
}

function effectiveTools(host: Host, principal: Principal): string[] {
  const view = host.store.current().viewFor(principal);
  const rows = view.entries.map((e) => {
    const d = e.tool.descriptor;
    return [d.toolId, d.safetyTier, d.approval ?? 'never'];
  });
  const width = Math.max(6, ...rows.map((r) => r[0].length));
  return [
    `principal ${principal.id} (tenant ${principal.tenant}, scopes: ${[...principal.scopes].join(', ') || 'none'}): ${rows.length} tools`,
    `  ${'toolId'.padEnd(width)}  tier   approval`,
    ...rows.map(([id, tier, approval]) => `  ${id.padEnd(width)}  ${tier.padEnd(5)}  ${approval}`),
  ];
}

export async function runValidate(configFile: string, options: ValidateOptions = {}): Promise<ValidateResult> {
  const env = options.env ?? process.env;
  const collector = stderrCollector();
  const host = await startHost(configFile, { logger: collector.logger, env, startDeadlineMs: options.waitMs ?? DEFAULT_VALIDATE_WAIT_MS, watchConfig: false });
  try {
    const snapshot = host.store.current();
    const lines = [`${host.loaded.file}: ${snapshot.entries.length} tools from ${host.sources.list.length} sources`];
    for (const tenant of Object.keys(host.loaded.config.tenants).sort()) {
      const view = snapshot.viewFor({ tenant, scopes: new Set(snapshot.entries.flatMap((e) => e.tool.descriptor.auth?.scopes ?? [])) });
      const bySource = new Map<string, number>();
      for (const e of view.entries) bySource.set(e.tool.descriptor.source, (bySource.get(e.tool.descriptor.source) ?? 0) + 1);
      const parts = [...bySource.entries()].sort().map(([s, n]) => `${s} ${n}`);
      lines.push(`  tenant ${tenant}: ${view.entries.length} tools (${parts.join(', ') || 'none'}) with every scope held`);
    }
    const severity = (kind: FindingKind): 'error' | 'warning' => {
      if (options.errors?.includes(kind)) return 'error';
      if (options.warnings?.includes(kind)) return 'warning';
      return options.strict || ERRORS_BY_DEFAULT.has(kind) ? 'error' : 'warning';
    };
    let errors = 0;
    for (const f of await findingsOf(host, collector.tail, env)) {
      const level = severity(f.kind);
      if (level === 'error') errors++;
      lines.push(`  ${level} [${f.kind}]: ${f.text}`);
    }
    if (options.principal !== undefined || options.key !== undefined) {
      const caller = callerOf(host, options);
      if (typeof caller === 'string') {
        lines.push(`  error: ${caller}`);
        errors++;
      } else lines.push(...effectiveTools(host, caller));
    }
    lines.push(errors > 0 ? `invalid: ${errors} error${errors === 1 ? '' : 's'}` : 'valid');
    return { output: `${lines.join('\n')}\n`, exitCode: errors > 0 ? 1 : 0 };
  } finally {
    await host.stop();
  }
}
