import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { isCredentialName, mentionsCredential } from '../../src/contract/credential-names.js';

// What each former pattern caught must still be caught by the predicate that
// replaced it, and descriptor redaction must not widen to ordinary names.

/** Whole names: descriptor redaction (formerly catalog/redact's SECRET_KEY). */
const WHOLE_NAMES = [
  'password', 'Password', 'passwd', 'passphrase', 'pass', 'pwd', 'secret', 'client_secret', 'client-secret', 'clientSecret',
  'token', 'access_token', 'accessToken', 'refresh-token', 'id_token', 'auth_token', 'bearer', 'api_key', 'api-key', 'apiKey',
  'apikey', 'api key', 'private_key', 'privateKey', 'authorization', 'Authorization', 'authorisation', 'credential',
  'credentials', 'cookie', 'session_id', 'sessionId', 'x-api-key', 'X-Api-Key', 'x-token',
];
/** Ordinary property names a descriptor must keep. */
const ORDINARY_NAMES = [
  'keyword', 'monkey', 'key', 'keys', 'sort_key', 'author', 'auth', 'session', 'session_count', 'signature', 'tokens_used',
  'max_tokens', 'passenger', 'compass', 'password_hint', 'name', 'description', 'cookies_enabled', 'x-keyword', 'secretary',
];
/** Substrings: MCP header/env/query names (formerly mcp/redact's SECRET_NAME) and connector names (schema-convert's CREDENTIAL_NAME). */
const MENTIONING_NAMES = [
  'Authorization', 'X-Upstream-Auth', 'GITHUB_TOKEN', 'MYTOKEN', 'OPENAI_API_KEY', 'x-api-key', 'OPENAI_KEY', 'client_secret',
  'DB_PASSWORD', 'userPassword', 'passwd', 'PWD', 'Cookie', 'set_cookie', 'SESSION', 'session_id', 'credentials_file',
  'X-Signature', 'webhook_signature', 'private-key', 'authorisation', 'bearer_value',
];
/** Names no reading may flag. */
const PLAIN_NAMES = ['name', 'description', 'limit', 'offset', 'user_id', 'Accept', 'Content-Type', 'X-Request-Id', 'HOME', 'PATH', 'LANG', 'region'];

test('whole-name reading: every credential word alone, with an x- prefix and any separator', () => {
  for (const n of WHOLE_NAMES) assert.equal(isCredentialName(n), true, n);
});

test('whole-name reading keeps ordinary names, including ones that merely contain a credential word', () => {
  for (const n of [...ORDINARY_NAMES, ...PLAIN_NAMES]) assert.equal(isCredentialName(n), false, n);
});

test('substring reading: credential words anywhere in a name', () => {
  for (const n of [...MENTIONING_NAMES, ...WHOLE_NAMES]) assert.equal(mentionsCredential(n), true, n);
  for (const n of PLAIN_NAMES) assert.equal(mentionsCredential(n), false, n);
});

test('property: the substring reading covers the whole-name reading, whatever surrounds the name', () => {
  const word = fc.constantFrom(...WHOLE_NAMES);
  const affix = fc.stringMatching(/^[A-Za-z0-9_-]{0,8}$/);
  fc.assert(
    fc.property(word, affix, affix, (w, before, after) => {
      assert.equal(isCredentialName(w), true);
      assert.equal(mentionsCredential(before + w + after), true);
    }),
  );
});
