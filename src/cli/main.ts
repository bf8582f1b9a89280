// The `toolhost` command line: serve, validate, hash-key, compact. Each
// command loads its own modules when it runs, so `--help` and `--version`
// answer without loading the host.
import { readFileSync } from 'node:fs';
import { Command, InvalidArgumentError, Option } from 'commander';
import { ConfigError } from '../util/validated-yaml.js';
import { FINDING_KINDS, LOG_LEVELS, type FindingKind } from './choices.js';

const packageJson = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

function port(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('a port is an integer from 0 to 65535');
  return n;
}

function seconds(value: string): number {
  const n = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value.trim()) || !(n > 0) || n > 3600) throw new InvalidArgumentError('a number of seconds above 0 and at most 3600');
  return n;
}

function findingKinds(value: string): FindingKind[] {
  const kinds = value.split(',').map((k) => k.trim()).filter((k) => k !== '');
  for (const k of kinds) if (!(FINDING_KINDS as readonly string[]).includes(k)) throw new InvalidArgumentError(`unknown finding kind "${k}"; use ${FINDING_KINDS.join(', ')}`);
  return kinds as FindingKind[];
}

function fail(message: string, exitCode = 2): never {
  process.stderr.write(`toolhost: ${message}\n`);
  process.exit(exitCode);
}

function failOnConfigError(err: unknown): never {
  if (err instanceof ConfigError) {
    process.stderr.write(`toolhost: invalid configuration\n${err.problems.map((p) => `  ${p}`).join('\n')}\n`);
    process.exit(2);
  }
  // The PostgreSQL event store could not be opened: one line naming the server (never the URL), not a stack trace.
  if ((err as Error | undefined)?.name === 'EventStoreOpenError') {
    process.stderr.write(`toolhost: cannot open the event store: ${(err as Error).message}\n`);
    process.exit(1);
  }
  throw err;
}

const program = new Command('toolhost')
  .description('A tenant-scoped tool catalog host (openwop v2 toolCatalog)')
  .version(packageJson.version, '-V, --version', 'print the toolhost version');

interface ServeFlags {
  config: string;
  host?: string;
  port?: number;
  banner?: string;
  logLevel?: string;
  logFormat: 'auto' | 'json' | 'pretty';
}

program
  .command('serve')
  .description('start the host')
  .requiredOption('--config <file>', 'config file (YAML or JSON)')
  .option('--host <host>', 'address to listen on (default: $HOST, else server.host, else 127.0.0.1)')
  .option('--port <port>', 'port to listen on (default: $PORT, else server.port, else 8080)', port)
  .option('--banner <file>', 'a text file printed after start; {url} in it becomes the URL the host listens on')
  .addOption(new Option('--log-level <level>', 'log level (default: $LOG_LEVEL, else info)').choices(LOG_LEVELS))
  .addOption(new Option('--log-format <format>', 'log lines: JSON, readable, or readable only on a terminal').choices(['auto', 'json', 'pretty']).default('auto'))
  .action(async (opts: ServeFlags) => {
    const [{ serve }, { loadConfigFile }, { checkPortFree, PortInUse }, { closeLogger, createLogger, resolveLogLevel }] = await Promise.all([
      import('../host/serve.js'),
      import('../config/load.js'),
      import('./port-check.js'),
      import('./logger.js'),
    ]);
    let level;
    try {
      level = resolveLogLevel(opts.logLevel, process.env);
    } catch (err) {
      fail((err as Error).message);
    }
    let envPort: number | undefined;
    try {
      envPort = process.env.PORT === undefined || process.env.PORT === '' ? undefined : port(process.env.PORT);
    } catch {
      fail(`PORT="${process.env.PORT}" is not a port (an integer from 0 to 65535)`);
    }
    let server;
    try {
      server = loadConfigFile(opts.config).config.server ?? {};
    } catch (err) {
      failOnConfigError(err);
    }
    const host = opts.host ?? (process.env.HOST || undefined) ?? server.host ?? '127.0.0.1';
    const listenPort = opts.port ?? envPort ?? server.port ?? 8080;
    // Refuse a taken port before any source (an MCP child, a watcher) starts.
    await checkPortFree(host, listenPort).catch((err: unknown) => fail(err instanceof PortInUse ? err.message : `cannot listen on ${host}:${listenPort}: ${(err as Error).message}`));
    const logger = createLogger(level, opts.logFormat);
    const running = await serve(opts.config, { host, port: listenPort, logger, processMetrics: true }).catch((err: unknown) => {
      if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') fail(`port ${listenPort} is in use; pass --port or set PORT`);
      return failOnConfigError(err);
    });
    process.stdout.write(`toolhost ${packageJson.version} listening on ${running.url}\n`);
    if (opts.banner) process.stdout.write(readFileSync(opts.banner, 'utf8').replaceAll('{url}', running.url));
    let closing = false;
    // The log is buffered (cli/logger.ts): every line, the stop's own included, is written out before the exit.
    const shutdown = () => {
      if (closing) return;
      closing = true;
      running.close().then(
        () => closeLogger(logger).then(() => process.exit(0)),
        () => closeLogger(logger).then(() => process.exit(1)),
      );
    };
    process.on('SIGINT', shutdown);
    process.on('SIGTERM', shutdown);
    // SIGHUP re-reads the config (and what it names) and applies it, or says why not (docs/config.md).
    process.on('SIGHUP', () => void running.host.reloader.reloadFile('SIGHUP').catch((err: unknown) => logger.error({ err }, 'config reload failed')));
  });

program
  .command('connect')
  .description('serve MCP on stdio and forward it to a toolhost /mcp endpoint (for clients that can only spawn a command)')
  .requiredOption('--url <url>', 'the toolhost MCP endpoint, e.g. http://127.0.0.1:8080/mcp')
  .option('--token-env <name>', 'environment variable holding the bearer credential')
  .option('--token-file <file>', 'file holding the bearer credential (re-read at every reconnect)')
  .action(async (opts: { url: string; tokenEnv?: string; tokenFile?: string }) => {
    const { runConnect } = await import('./connect-command.js');
    await runConnect(opts, packageJson.version);
  });

program
  .command('clients')
  .description('print ready-to-paste configuration for Claude Desktop, Claude Code, Cursor, VS Code, Codex and Windsurf')
  .option('--url <url>', 'the toolhost MCP endpoint', 'http://127.0.0.1:8080/mcp')
  .option('--token-env <name>', 'the environment variable that holds the credential', 'TOOLHOST_TOKEN')
  .option('--name <name>', "the server's name in each client", 'toolhost')
  .addOption(new Option('--client <id>', 'only this client').choices(['claude-desktop', 'claude-code', 'cursor', 'vscode', 'codex', 'windsurf']))
  .option('--json', 'print the configurations as one JSON document')
  .action(async (opts: { url: string; tokenEnv: string; name: string; client?: string; json?: boolean }) => {
    const [{ clientConfigs, renderClients }, { ENV_NAME_PATTERN }] = await Promise.all([import('./clients-command.js'), import('../util/secret-ref.js')]);
    if (!/^https?:\/\//.test(opts.url) || !URL.canParse(opts.url)) fail('--url must be an http:// or https:// URL, e.g. https://tools.example.com/mcp');
    if (!ENV_NAME_PATTERN.test(opts.tokenEnv)) fail('--token-env must be an environment variable name');
    if (!/^[A-Za-z][A-Za-z0-9_-]{0,63}$/.test(opts.name)) fail('--name must start with a letter and hold only letters, digits, - and _ (at most 64)');
    const configs = clientConfigs(opts).filter((c) => opts.client === undefined || c.id === opts.client);
    process.stdout.write(opts.json ? `${JSON.stringify(configs, null, 2)}\n` : renderClients(configs));
  });

program
  .command('validate')
  .description('check a config as serve would, report what would pass silently, and print per tenant how many tools each source contributes')
  .requiredOption('--config <file>', 'config file (YAML or JSON)')
  .option('--strict', 'every finding is an error (the default when $CI is set)')
  .option('--no-strict', 'only source-failed and secret-unset are errors')
  .option('--error <kinds>', 'comma-separated finding kinds to make errors: source-failed, secret-unset, glob-unmatched, rule-unmatched', findingKinds)
  .option('--warn <kinds>', 'comma-separated finding kinds to make warnings', findingKinds)
  .option('--principal <id>', "print this principal's effective tools with tier and approval")
  .option('--key <apiKey>', 'the same for the principal holding this API key (prefer --principal: a key on the command line lands in shell history)')
  .option('--wait <seconds>', 'how long to wait for sources still starting (a source that connects or fails ends the wait early)', seconds, 30)
  .action(async (opts: { config: string; strict?: boolean; error?: FindingKind[]; warn?: FindingKind[]; principal?: string; key?: string; wait: number }) => {
    const { runValidate } = await import('./validate-command.js');
    const strict = opts.strict ?? (process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false');
    const result = await runValidate(opts.config, { strict, errors: opts.error, warnings: opts.warn, principal: opts.principal, key: opts.key, waitMs: opts.wait * 1000 }).catch(failOnConfigError);
    process.stdout.write(result.output);
    process.exitCode = result.exitCode;
  });

program
  .command('config-schema')
  .description('print the JSON Schema of the config file (the repository ships it as toolhost.schema.json)')
  .action(async () => {
    const { hostConfigSchema } = await import('../config/schema.js');
    // JSON.stringify leaves out TypeBox's symbol keys: what is printed is plain JSON Schema.
    process.stdout.write(`${JSON.stringify(hostConfigSchema, null, 2)}\n`);
  });

program
  .command('config')
  .description('the running configuration')
  .command('export')
  .description('print the effective configuration as YAML: the file with the admin API changes stored in the event store over it')
  .requiredOption('--config <file>', 'config file (YAML or JSON)')
  .action(async (opts: { config: string }) => {
    const { runConfigExport } = await import('./export-command.js');
    process.stdout.write(await runConfigExport(opts.config).catch(failOnConfigError));
  });

program
  .command('hash-key')
  .description('print the keyHash of an API key for the config (reads the key from stdin when not given)')
  .argument('[key]', 'the API key; prefer stdin so it stays out of shell history')
  .action(async (key?: string) => {
    const { hashApiKey } = await import('../auth/api-keys.js');
    const value = key ?? readFileSync(0, 'utf8').replace(/\r?\n$/, '');
    if (value.length === 0) fail('no key given');
    process.stdout.write(`${hashApiKey(value)}\n`);
  });

program
  .command('compact')
  .description('print the compact form of a JSON Schema file and what was loosened')
  .argument('<file>', 'a JSON Schema file')
  .action(async (file: string) => {
    const { runCompactCommand } = await import('./compact-command.js');
    const { output, exitCode } = runCompactCommand(file);
    process.stdout.write(output);
    process.exitCode = exitCode;
  });

await program.parseAsync(process.argv);
