// `events.postgres` in the config: the URL only by reference (a password
// written in the file is refused), `${VAR}` and secret references resolved,
// errors naming the variable or file and never a value, and `file` and
// `postgres` excluding each other.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { loadConfigFile } from '../../src/config/load.js';
import { checkNoLiteralPassword, postgresStoreOptions, resolvePostgresUrl } from '../../src/host/postgres-events-config.js';

test('a password written into the URL is refused; a ${VAR} in its place or a URL without password is not', () => {
  for (const bad of ['postgres://app:hunter2@db:5432/toolhost', 'postgresql://app:x${PW}@db/t', 'postgres://app@db/t?sslmode=require&password=hunter2']) {
    assert.throws(() => checkNoLiteralPassword(bad), (err: Error) => /written in the config file/.test(err.message) && !err.message.includes('hunter2'), bad);
  }
  for (const good of ['postgres://app:${PGPASSWORD}@db:5432/toolhost', '${DATABASE_URL}', 'postgres://app@db/toolhost', 'postgres:///toolhost?host=/run/postgresql', 'postgres://app:@db/t']) {
    checkNoLiteralPassword(good);
  }
});

test('any literal password is refused and the error never holds it (property)', () => {
  fc.assert(
    fc.property(fc.stringMatching(/^[A-Za-z0-9._~!*'()-]{1,30}$/), (password) => {
      fc.pre(!/^\$\{/.test(password));
      assert.throws(() => checkNoLiteralPassword(`postgres://app:${password}@db/t`), (err: Error) => !err.message.includes(`:${password}@`));
    }),
  );
});

test('the URL comes from ${VAR}, { env } or { file }; a missing one names the variable or file, not a value', () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolhost-pgcfg-'));
  try {
    writeFileSync(join(dir, 'db-url'), 'postgres://app:s3cret@db/t\n');
    const env = { PGPASSWORD: 's3cret', DATABASE_URL: 'postgres://app:s3cret@db/t' };
    assert.equal(resolvePostgresUrl('postgres://app:${PGPASSWORD}@db/t', env, dir), 'postgres://app:s3cret@db/t');
    assert.equal(resolvePostgresUrl({ env: 'DATABASE_URL' }, env, dir), 'postgres://app:s3cret@db/t');
    assert.equal(resolvePostgresUrl({ file: 'db-url' }, env, dir), 'postgres://app:s3cret@db/t');
    assert.throws(() => resolvePostgresUrl('${NOPE}', env, dir), /environment variable NOPE is not set/);
    assert.throws(() => resolvePostgresUrl({ file: 'missing' }, env, dir), /cannot read secret file missing/);
    const options = postgresStoreOptions({ postgres: { url: '${DATABASE_URL}', poolSize: 3 }, retentionDays: 7 }, env, dir);
    assert.deepEqual({ ...options, url: '-' }, { url: '-', poolSize: 3, channel: undefined, pollIntervalMs: undefined, connectTimeoutMs: undefined, retentionDays: 7, maxEvents: undefined });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the config takes events.file or events.postgres, not both and not neither', () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolhost-pgcfg-'));
  const write = (events: string) => {
    const file = join(dir, 'toolhost.yaml');
    writeFileSync(file, `tenants:\n  acme: { tools: ['*'] }\nevents:\n${events}`);
    return file;
  };
  try {
    assert.equal(loadConfigFile(write(`  postgres: { url: '\${DATABASE_URL}', poolSize: 4 }\n`)).config.events?.postgres?.poolSize, 4);
    assert.equal(loadConfigFile(write(`  postgres: { url: { env: DATABASE_URL } }\n`)).config.events?.postgres?.url.toString(), '[object Object]');
    assert.throws(() => loadConfigFile(write(`  file: e.db\n  postgres: { url: '\${DATABASE_URL}' }\n`)), /events\.file \(SQLite\) and events\.postgres exclude each other/);
    assert.throws(() => loadConfigFile(write(`  retentionDays: 3\n`)), /missing required key "postgres"/);
    assert.throws(() => loadConfigFile(write(`  postgres: { url: '\${DATABASE_URL}', channel: 'Bad-Name' }\n`)), /channel/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
