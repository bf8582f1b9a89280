// Names that say "this holds a credential" (docs/contract.md "The descriptor": a descriptor must
// NOT carry credential material", and no credential in logs or events). One
// word list, read two ways, because the uses differ in what a false match
// costs:
//
// - `isCredentialName`: the whole name is a credential word (an optional
//   `x-` prefix aside). Descriptor redaction replaces the string value of
//   every such key at any depth of a served descriptor, so it must not eat
//   ordinary property names: "keyword", "monkey", "author", "session_count"
//   stay. The generic parts (`key`, `auth`, `session`, `signature`) count
//   only inside a longer name, never alone.
// - `mentionsCredential`: a credential word appears anywhere in the name.
//   Used where a false match only hides a value: MCP upstream header, env and
//   URL-query names (a matching value is kept out of everything, the rest out
//   of logs and health), and connector parameter and property names (a
//   matching one gets no upstream sample values).
//
// A word written with a space may be written with `-`, `_`, a space or
// nothing there ("api key": api-key, api_key, apikey); case is ignored.

interface CredentialWord {
  word: string;
  /** False for generic parts that name a credential only inside a longer name. */
  alone: boolean;
}

const CREDENTIAL_WORDS: readonly CredentialWord[] = [
  { word: 'password', alone: true },
  { word: 'passwd', alone: true },
  { word: 'passphrase', alone: true },
  { word: 'pass', alone: true },
  { word: 'pwd', alone: true },
  { word: 'secret', alone: true },
  { word: 'client secret', alone: true },
  { word: 'token', alone: true },
  { word: 'access token', alone: true },
  { word: 'refresh token', alone: true },
  { word: 'id token', alone: true },
  { word: 'auth token', alone: true },
  { word: 'bearer', alone: true },
  { word: 'api key', alone: true },
  { word: 'private key', alone: true },
  { word: 'authorization', alone: true },
  { word: 'authorisation', alone: true },
  { word: 'credential', alone: true },
  { word: 'credentials', alone: true },
  { word: 'cookie', alone: true },
  { word: 'session id', alone: true },
  { word: 'key', alone: false },
  { word: 'auth', alone: false },
  { word: 'session', alone: false },
  { word: 'signature', alone: false },
];

function spelled(words: readonly CredentialWord[]): string {
  return words.map((w) => w.word.replace(/ /g, '[-_ ]?')).join('|');
}

const WHOLE_NAME = new RegExp(`^(?:x-)?(?:${spelled(CREDENTIAL_WORDS.filter((w) => w.alone))})$`, 'i');
/** The substring reading as a pattern (no `g` flag: `test` keeps no state). */
export const CREDENTIAL_MENTION = new RegExp(spelled(CREDENTIAL_WORDS), 'i');

/** The whole name is a credential word (`password`, `X-Api-Key`, `client_secret`), not merely contains one. */
export function isCredentialName(name: string): boolean {
  return WHOLE_NAME.test(name);
}

/** Some credential word appears in the name (`GITHUB_TOKEN`, `X-Upstream-Auth`, `userPassword`). */
export function mentionsCredential(name: string): boolean {
  return CREDENTIAL_MENTION.test(name);
}
