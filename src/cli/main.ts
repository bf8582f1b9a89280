// The `toolhost` command line: serve, validate, hash-key, compact.
import { readFileSync } from 'node:fs';
import { Command, InvalidArgumentError } from 'commander';
import { hashApiKey } from '../auth/api-keys.js';
import { ConfigError } from '../util/validated-yaml.js';
import { runCompactCommand } from './compact-command.js';
import { runValidate } from './validate-command.js';
import { serve } from '../host/serve.js';

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('a port is an integer from 0 to 65535');
  return n;
}

function failOnConfigError(err: unknown): never {
  if (err instanceof ConfigError) {
    process.stderr.write(`toolhost: invalid configuration\n${err.problems.map((p) => `  ${p}`).join('\n')}\n`);
    process.exit(2);
  }
  throw err;
}

const program = new Command('toolhost').description('A tenant-scoped tool catalog host (openwop v2 toolCatalog)');

program
  .command('serve')
  .description('start the host')
  .requiredOption('--config <file>', 'config file (YAML or JSON)')
  .option('--host <host>', 'address to listen on (default 127.0.0.1, or $HOST)')
  .option('--port <port>', 'port to listen on (default 8080, or $PORT)', port)
  .option('--banner <file>', 'a text file printed after start (the demo uses it to show its demo keys)')
  .action(async (opts: { config: string; host?: string; port?: number; banner?: string }) => {
    const envPort = process.env.PORT === undefined ? undefined : port(process.env.PORT);
    const running = await serve(opts.config, { host: opts.host ?? process.env.HOST, port: opts.port ?? envPort }).catch(failOnConfigError);
    process.stdout.write(`toolhost listening on ${running.url}\n`);
    if (opts.banner) process.stdout.write(readFileSync(opts.banner, 'utf8'));
    let closing = false;
    const shutdown = () => {
      if (closing) return;
      closing = true;
      running.close().then(() => process.exit(0), () => process.exit(1));
    };
    process.on('SIGINT', shutdown);
    process.on('SIGTERM', shutdown);
  });

program
  .command('validate')
  .description('check a config file and print, per tenant, how many tools each source contributes')
  .requiredOption('--config <file>', 'config file (YAML or JSON)')
  .action(async (opts: { config: string }) => {
    const out = await runValidate(opts.config).catch(failOnConfigError);
    process.stdout.write(out);
  });

program
  .command('hash-key')
  .description('print the keyHash of an API key for the config (reads the key from stdin when not given)')
  .argument('[key]', 'the API key; prefer stdin so it stays out of shell history')
  .action((key?: string) => {
    const value = key ?? readFileSync(0, 'utf8').replace(/\r?\n$/, '');
    if (value.length === 0) {
      process.stderr.write('toolhost: no key given\n');
      process.exit(2);
    }
    process.stdout.write(`${hashApiKey(value)}\n`);
  });

program
  .command('compact')
  .description('print the compact form of a JSON Schema file and what was loosened')
  .argument('<file>', 'a JSON Schema file')
  .action((file: string) => {
    const { output, exitCode } = runCompactCommand(file);
    process.stdout.write(output);
    process.exitCode = exitCode;
  });

await program.parseAsync(process.argv);
