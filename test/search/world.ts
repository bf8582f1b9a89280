// A host for the search tests: the demo packs, a connector both tenants see
// (the demo tickets API) and one only acme sees (written by the test, so it
// can change acme's tools while the host runs), and a host extension that
// needs a scope.
import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { hashApiKey } from '../../src/auth/api-keys.js';
import { tempDir, writeConfig } from '../helpers/server.js';

const root = new URL('../../', import.meta.url).pathname;

export const ACME = 'acme-search-key';
export const GLOBEX = 'globex-search-key';
/** Acme without the `exec` scope: sees everything but the scoped extension. */
export const ACME_NARROW = 'acme-narrow-key';

export interface Operation {
  operationId: string;
  summary: string;
  description?: string;
  tags?: string[];
}

/** An OpenAPI document with one GET per operation. */
export function privateDocument(ops: readonly Operation[]): string {
  const paths: Record<string, unknown> = {};
  for (const op of ops) {
    paths[`/${op.operationId}`] = {
      get: { operationId: op.operationId, summary: op.summary, ...(op.description ? { description: op.description } : {}), tags: op.tags ?? [], responses: { '200': { description: 'ok' } } },
    };
  }
  return stringify({ openapi: '3.0.3', info: { title: 'private', version: '1' }, servers: [{ url: 'https://private.example.com' }], paths });
}

export const PRIVATE_OPS: Operation[] = [
  { operationId: 'listInvoices', summary: 'List invoices', description: 'Lists the invoices of the acme ledger.', tags: ['billing'] },
  { operationId: 'closeLedger', summary: 'Close the ledger', description: 'Closes the month in the acme ledger.', tags: ['billing'] },
];

export interface SearchWorld {
  configFile: string;
  privateDoc: string;
}

export function writeSearchWorld(extra: Record<string, unknown> = {}): SearchWorld {
  const dir = tempDir('toolhost-search-');
  copyFileSync(join(root, 'examples/demo/openapi/tickets.yaml'), join(dir, 'tickets.yaml'));
  const privateDoc = join(dir, 'private.yaml');
  writeFileSync(privateDoc, privateDocument(PRIVATE_OPS));
  const configFile = writeConfig(
    {
      tenants: {
        acme: { tools: ['*'] },
        globex: { tools: ['openwop:text.*', 'connector:tickets.*', 'openwop:notes.list'] },
      },
      principals: [
        { id: 'acme-agent', tenant: 'acme', keyHash: hashApiKey(ACME), scopes: ['exec'] },
        { id: 'acme-narrow', tenant: 'acme', keyHash: hashApiKey(ACME_NARROW), scopes: [] },
        { id: 'globex-agent', tenant: 'globex', keyHash: hashApiKey(GLOBEX) },
      ],
      policy: {
        rules: [
          { match: 'openwop:text.*', safetyTier: 'pure' },
          { match: 'openwop:notes.list', safetyTier: 'read' },
          { match: 'x-host-acme-wipe', safetyTier: 'exec', approval: 'always', scopes: ['exec'] },
        ],
      },
      sources: {
        nodePacks: [{ path: join(root, 'examples/demo/packs/text') }, { path: join(root, 'examples/demo/packs/notes') }],
        hostExtensions: [
          {
            vendor: 'acme',
            name: 'wipe',
            title: 'Wipe the ticket archive',
            description: 'Deletes every archived ticket on the host.',
            command: [process.execPath, '-e', '0'],
            inputSchema: { type: 'object', properties: {} },
          },
        ],
        connectors: [
          { id: 'tickets', document: 'tickets.yaml', watch: false },
          { id: 'private', document: 'private.yaml', debounceMs: 30 },
        ],
      },
      ...extra,
    },
    dir,
  );
  return { configFile, privateDoc };
}

export { waitFor } from '../helpers/patience.js';
