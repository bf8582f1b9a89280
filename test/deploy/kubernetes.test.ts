// The Kubernetes manifest of docs/deploy.md (examples/kubernetes/toolhost.yaml,
// the same text in both places): every object valid for its kind by the
// Kubernetes OpenAPI schemas that kubernetes-models ships and validates with;
// probes on /healthz and /readyz of the container's port; the config from the
// ConfigMap and the keys from the Secret, where the config says; the config
// itself accepted by toolhost's loader, the keys file by its schema.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { Deployment } from 'kubernetes-models/apps/v1';
import { ConfigMap, Secret, Service } from 'kubernetes-models/v1';
import { loadConfigFile } from '../../src/config/load.js';
import { tempDir } from '../helpers/server.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const FILE = join(ROOT, 'examples/kubernetes/toolhost.yaml');
const text = readFileSync(FILE, 'utf8');
const docs = parseAllDocuments(text).map((d) => d.toJS() as { kind: string; metadata: { name: string } } & Record<string, any>);
const byKind = (kind: string) => docs.find((d) => d.kind === kind)!;

test('docs/deploy.md shows the manifest examples/kubernetes/toolhost.yaml holds', () => {
  const deploy = readFileSync(join(ROOT, 'docs/deploy.md'), 'utf8');
  const block = /```yaml\n(# toolhost on Kubernetes[\s\S]*?)```/.exec(deploy);
  assert.ok(block, 'docs/deploy.md has the manifest in a yaml block');
  assert.equal(block[1], text);
});

test('each object is valid for its kind (Kubernetes OpenAPI schemas)', () => {
  assert.deepEqual(docs.map((d) => d.kind), ['ConfigMap', 'Secret', 'Deployment', 'Service']);
  const models = { ConfigMap, Secret, Deployment, Service } as Record<string, new (o: unknown) => { validate(): void }>;
  for (const d of docs) assert.doesNotThrow(() => new models[d.kind]!(d).validate(), `${d.kind} ${d.metadata.name}`);
  // Not vacuous: a wrong field type is refused.
  assert.throws(() => new Deployment({ ...byKind('Deployment'), spec: { ...byKind('Deployment').spec, replicas: 'one' } } as never).validate());
});

test('probes on /healthz and /readyz, a non-root user, config from the ConfigMap and keys from the Secret', () => {
  const pod = byKind('Deployment').spec.template.spec;
  const c = pod.containers[0];
  assert.equal(c.livenessProbe.httpGet.path, '/healthz');
  assert.equal(c.readinessProbe.httpGet.path, '/readyz');
  assert.equal(c.ports[0].containerPort, 8080);
  assert.equal(pod.securityContext.runAsNonRoot, true);
  const mount = (volume: string) => c.volumeMounts.find((m: { name: string }) => m.name === volume).mountPath;
  const volume = (name: string) => pod.volumes.find((v: { name: string }) => v.name === name);
  assert.equal(volume('config').configMap.name, byKind('ConfigMap').metadata.name);
  assert.equal(volume('keys').secret.secretName, byKind('Secret').metadata.name);
  assert.equal(c.args[c.args.indexOf('--config') + 1], `${mount('config')}/toolhost.yaml`);
  const config = byKind('ConfigMap').data['toolhost.yaml'] as string;
  assert.match(config, new RegExp(`keysFile: ${mount('keys')}/keys.yaml`));
  assert.ok(byKind('Service').spec.ports[0].targetPort === c.ports[0].name);
});

test('the ConfigMap\'s config and the Secret\'s keys file load', () => {
  const dir = tempDir('toolhost-k8s-');
  mkdirSync(join(dir, 'keys'));
  const config = (byKind('ConfigMap').data['toolhost.yaml'] as string)
    .replace('/etc/toolhost/keys/keys.yaml', join(dir, 'keys/keys.yaml'))
    .replace('/var/lib/toolhost/', `${dir}/`)
    .replace('/app/examples/', join(ROOT, 'examples/'));
  writeFileSync(join(dir, 'toolhost.yaml'), config);
  writeFileSync(join(dir, 'keys/keys.yaml'), byKind('Secret').stringData['keys.yaml']);
  assert.doesNotThrow(() => loadConfigFile(join(dir, 'toolhost.yaml')));
});
