// The RFC 9728 metadata built from the config (docs/auth.md "OAuth discovery
// for MCP clients"): where it is served and the 401 hint that points to it,
// for a resource at the root, at /mcp and behind a path prefix.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { protectedResourceOf } from '../../src/auth/protected-resource.js';

const jwt = { issuer: ['https://idp.example/', 'https://idp2.example/'], audience: 'x', jwksUrl: 'https://idp.example/jwks' };

test('no metadata without auth.oauth', () => {
  assert.equal(protectedResourceOf({ jwt }), undefined);
  assert.equal(protectedResourceOf(undefined), undefined);
});

test('the metadata URL follows the resource path (RFC 9728 section 3.1); /mcp\'s form is always served', () => {
  const root = protectedResourceOf({ jwt, oauth: { resource: 'https://h.example/' } })!;
  assert.deepEqual(root.paths, ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']);
  assert.equal(root.challenge, 'resource_metadata="https://h.example/.well-known/oauth-protected-resource"');
  assert.deepEqual(root.document.authorization_servers, jwt.issuer, 'the JWT issuers by default');

  const mcp = protectedResourceOf({ jwt, oauth: { resource: 'https://h.example/mcp', authorizationServers: ['https://as.example/'] } })!;
  assert.deepEqual(mcp.paths, ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']);
  assert.equal(mcp.challenge, 'resource_metadata="https://h.example/.well-known/oauth-protected-resource/mcp"');
  assert.deepEqual(mcp.document, { resource: 'https://h.example/mcp', authorization_servers: ['https://as.example/'], bearer_methods_supported: ['header'] });

  const prefixed = protectedResourceOf({ jwt, oauth: { resource: 'https://h.example/tools/mcp' } })!;
  assert.ok(prefixed.paths.includes('/.well-known/oauth-protected-resource/tools/mcp'));
  assert.equal(prefixed.challenge, 'resource_metadata="https://h.example/.well-known/oauth-protected-resource/tools/mcp"');
});
