// No credential material in any descriptor (seed "The descriptor"): a secret
// in a declared schema never reaches the wire, and the log names the tool
// without repeating the secret.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hashApiKey } from '../../src/auth/api-keys.js';
import { request, startTestServer, writeConfig } from '../helpers/server.js';

test('a secret in a schema default, examples or description is not served, and the warning names the tool', async () => {
  const secret = 'sk-live-abcdefghijklmnopqrstuvwxyz';
  const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U';
  const file = writeConfig({
    tenants: { t: { tools: ['*'] } },
    principals: [{ id: 'p', tenant: 't', keyHash: hashApiKey('k') }],
    sources: {
      hostExtensions: [
        {
          vendor: 'v',
          name: 'leaky',
          command: ['true'],
          description: `Use token ${jwt} to call it`,
          inputSchema: { type: 'object', properties: { key: { type: 'string', default: secret, examples: [secret] }, password: { type: 'string' } } },
        },
      ],
    },
  });
  const server = await startTestServer(file);
  try {
    for (const path of ['/tools', '/tools/x-host-v-leaky', '/tools?view=compact', '/tools/x-host-v-leaky?view=compact']) {
      const res = await request(server.url, path, { token: 'k' });
      assert.equal(res.status, 200);
      assert.ok(!res.text.includes(secret), path);
      assert.ok(!res.text.includes(jwt.slice(0, 30)), path);
    }
    const d = (await request(server.url, '/tools/x-host-v-leaky', { token: 'k' })).json();
    assert.deepEqual(d.inputSchema.properties.password, { type: 'string' });
    assert.equal(d.inputSchema.properties.key.type, 'string');
    const warning = server.logs.find((l) => l.includes('x-host-v-leaky') && l.includes('credential'));
    assert.ok(warning, 'a warning names the tool');
    assert.ok(server.logs.every((l) => !l.includes(secret) && !l.includes(jwt.slice(0, 30))), 'no log line holds the secret');
  } finally {
    await server.close();
  }
});
