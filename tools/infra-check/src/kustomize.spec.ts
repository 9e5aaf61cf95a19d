import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { configMapHash, renderKustomization, strategicMerge } from './kustomize';

const ROOT = join(__dirname, '../../..');

/** kubectl's own kustomize, where this machine has one: none is needed for the checks, only for this comparison. */
function kubectlKustomize(dir: string): unknown[] | null {
  try {
    const text = execFileSync('kubectl', ['kustomize', dir], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    return parseAllDocuments(text).map((doc) => doc.toJS());
  } catch {
    return null;
  }
}

const key = (m: Record<string, any>) => `${m.kind}/${m.metadata.name}`;

describe('renderKustomization', () => {
  it.each(['k8s/overlays/dev', 'k8s/overlays/prod'])('renders %s as kubectl does', (overlay) => {
    const ours = renderKustomization(join(ROOT, overlay));
    const theirs = kubectlKustomize(join(ROOT, overlay));
    if (!theirs) return;
    const sorted = (list: any[]) => [...list].sort((a, b) => key(a).localeCompare(key(b)));
    expect(sorted(ours)).toEqual(sorted(theirs));
  });

  // Suffixes kubectl kustomize (kustomize v5.5.0) gives these generators; they hold without kubectl too.
  it.each([
    [{ k: 'v' }, 'bdg947hgcc'],
    [{ k: 'w' }, 'mgtm594d64'],
    [{ k: 'a&<b>', b: '1' }, 'tg9bgk6k2h'],
  ])('names a ConfigMap of %j by its content as kustomize does', (data, suffix) => {
    expect(configMapHash({ metadata: { name: 'a' }, data })).toBe(suffix);
    // kustomize leaves the name out of the hash (see configMapHash).
    expect(configMapHash({ metadata: { name: 'other' }, data })).toBe(suffix);
  });

  it('merges maps, named lists by name, and replaces other lists', () => {
    expect(
      strategicMerge(
        { a: { b: 1, c: 2 }, env: [{ name: 'X', value: '1' }], rules: [{ host: 'a' }] },
        {
          a: { c: 3 },
          env: [
            { name: 'Y', value: '2' },
            { name: 'X', value: '9' },
          ],
          rules: [{ host: 'b' }],
        },
      ),
    ).toEqual({
      a: { b: 1, c: 3 },
      env: [
        { name: 'Y', value: '2' },
        { name: 'X', value: '9' },
      ],
      rules: [{ host: 'b' }],
    });
  });
});
