import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { type Manifest, renderKustomization } from './kustomize';
import { composeSchemaProblems, kubernetesSchemaProblems } from './schemas';

// The rendered overlays against the Kubernetes API's schemas (Gateway API's for the HTTPRoute), and
// docker-compose.yml against the Compose Specification's, each check failing on a broken copy.

const ROOT = join(__dirname, '../../..');
const OVERLAYS = ['dev', 'prod'] as const;
const rendered = new Map(
  OVERLAYS.map((o) => [o, renderKustomization(join(ROOT, 'k8s/overlays', o))] as const),
);
const copy = <T>(value: T): T => structuredClone(value);

describe('Kubernetes schemas', () => {
  it.each(OVERLAYS)('accept every object of overlays/%s', (overlay) => {
    const objects = rendered.get(overlay) as Manifest[];
    expect(objects.length).toBeGreaterThan(20);
    expect(kubernetesSchemaProblems(objects)).toEqual([]);
  });

  it('cover every kind the overlays render, the HTTPRoute included', () => {
    const kinds = new Set([...rendered.values()].flat().map((m) => `${m.apiVersion} ${m.kind}`));
    expect(kinds).toContain('gateway.networking.k8s.io/v1 HTTPRoute');
    expect(kinds).toContain('apps/v1 Deployment');
    // Every kind was validated above: one without a schema is a problem, not a skip (below).
  });

  describe('fail on a broken copy', () => {
    const dev = () => copy(rendered.get('dev') as Manifest[]);
    const find = (objects: Manifest[], kind: string, name?: string): Manifest => {
      const found = objects.find((m) => m.kind === kind && (!name || m.metadata?.name === name));
      if (!found) throw new Error(`no ${kind} ${name ?? ''}`);
      return found;
    };

    it('a Deployment whose replicas is a string', () => {
      const objects = dev();
      find(objects, 'Deployment', 'auth').spec.replicas = 'two';
      expect(kubernetesSchemaProblems(objects)).toEqual(['Deployment auth: /spec/replicas must be integer']);
    });

    it('a container with a field Kubernetes does not have, and a misspelt resources key', () => {
      const objects = dev();
      const container = find(objects, 'Deployment', 'billing').spec.template.spec.containers[0];
      container.imagePullPolicyy = 'Always';
      container.resources.limit = container.resources.limits;
      expect(kubernetesSchemaProblems(objects)).toEqual([
        'Deployment billing: /spec/template/spec/containers/0/imagePullPolicyy is not a field of the schema',
        'Deployment billing: /spec/template/spec/containers/0/resources/limit is not a field of the schema',
      ]);
    });

    it('a probe port, a Service port and a missing required field', () => {
      const objects = dev();
      find(objects, 'Deployment', 'media').spec.template.spec.containers[0].readinessProbe.httpGet.port = {
        number: 8081,
      };
      find(objects, 'Service').spec.ports[0].port = '80';
      delete find(objects, 'Job').spec.template;
      const problems = kubernetesSchemaProblems(objects);
      expect(problems).toEqual(
        expect.arrayContaining([
          expect.stringMatching(
            /^Deployment media: \/spec\/template\/spec\/containers\/0\/readinessProbe\/httpGet\/port /,
          ),
          expect.stringMatching(/^Service \S+: \/spec\/ports\/0\/port must be integer$/),
          'Job migrate: /spec must have required property template',
        ]),
      );
    });

    it('an HTTPRoute with a timeout that is not a string and a rule field Gateway API does not have', () => {
      const objects = dev();
      const rule = find(objects, 'HTTPRoute').spec.rules[0];
      rule.timeouts.request = 630;
      rule.retry_budget = 3;
      expect(kubernetesSchemaProblems(objects)).toEqual([
        'HTTPRoute api-gateway: /spec/rules/0/timeouts/request must be string',
        'HTTPRoute api-gateway: /spec/rules/0/retry_budget is not a field of the schema',
      ]);
    });

    it('a NetworkPolicy with a misspelt selector, while labels and ConfigMap data stay free maps', () => {
      const objects = dev();
      const policy = find(objects, 'NetworkPolicy');
      policy.spec.podSelector = { matchLabel: { app: 'x' } };
      find(objects, 'ConfigMap').data.ANY_NEW_SETTING = 'x';
      find(objects, 'Deployment', 'auth').metadata.labels['example.com/any'] = 'x';
      expect(kubernetesSchemaProblems(objects)).toEqual([
        `NetworkPolicy ${policy.metadata.name}: /spec/podSelector/matchLabel is not a field of the schema`,
      ]);
    });

    it('a kind with no schema, a kind under the wrong apiVersion, and a type that is not a kind', () => {
      const problems = kubernetesSchemaProblems([
        { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } },
        { apiVersion: 'apps/v1', kind: 'Ingress', metadata: { name: 'i' } },
        { apiVersion: 'v1', kind: 'Container', metadata: { name: 'c' } },
        { apiVersion: 'v1', kind: '../../x', metadata: { name: 'p' } },
        { metadata: { name: 'n' } },
      ]);
      expect(problems).toEqual([
        'Widget w: no schema for apiVersion example.com/v1 kind Widget',
        'Ingress i: no schema for apiVersion apps/v1 kind Ingress',
        'Container c: no schema for apiVersion v1 kind Container',
        '../../x p: no schema for apiVersion v1 kind ../../x',
        '? n: no schema for apiVersion undefined kind undefined',
      ]);
    });
  });
});

describe('Compose Specification schema', () => {
  const compose = () =>
    parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as Manifest;

  it('accepts docker-compose.yml', () => {
    expect(composeSchemaProblems(compose())).toEqual([]);
  });

  it('fails a port of the wrong type, a service field compose does not have and a healthcheck interval that is not a duration', () => {
    const broken = compose();
    broken.services['api-gateway'].ports = [true];
    broken.services.auth.restart_policy = 'always';
    broken.services.postgres.healthcheck.interval = 5; // seconds, where compose wants a duration
    const problems = composeSchemaProblems(broken);
    expect(problems).toEqual(
      expect.arrayContaining([
        '/services/api-gateway/ports/0 must be number',
        '/services/auth must NOT have additional properties (restart_policy)',
        '/services/postgres/healthcheck/interval must be string',
      ]),
    );
  });

  it('fails a file whose merge keys were left unresolved', () => {
    const raw = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8')) as Manifest;
    expect(composeSchemaProblems(raw)).toContain(
      '/services/auth/build must NOT have additional properties (<<)',
    );
  });
});
