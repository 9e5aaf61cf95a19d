import * as contracts from '@gw/contracts';
// The permissions name the platform's own subjects and are tried with its own NATS clients.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { livenessSubject } from '@gw/platform';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { NATS_AUTH_CONFIG } from './generate-nats-config';
import {
  creditAndAdminContracts,
  NATS_USERS,
  natsPermissions,
  type NatsUserSpec,
  renderNatsAuthConfig,
} from './nats-users';

// The NATS permissions checked against the code: every subject an app's handlers take must be one
// it may subscribe to, every contract it uses one it may publish, and only the gateway may send
// credit and admin requests.

const ROOT = join(__dirname, '../../..');
type AnyContract = { kind: string; subject: string };

/** NATS subject matching: `*` is one token, `>` the rest. */
export function subjectMatches(pattern: string, subject: string): boolean {
  const p = pattern.split('.');
  const s = subject.split('.');
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '>') return s.length > i;
    if (i >= s.length || (p[i] !== '*' && p[i] !== s[i])) return false;
  }
  return p.length === s.length;
}
const allowed = (patterns: string[], subject: string) => patterns.some((p) => subjectMatches(p, subject));

/** `Group.name` → the contract, for every contract group the contracts library exports. */
function contractOf(reference: string): AnyContract | undefined {
  const [group, name] = reference.split('.');
  const found = (contracts as unknown as Record<string, Record<string, AnyContract>>)[group]?.[name];
  return found && typeof found.subject === 'string' ? found : undefined;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.ts$/.test(entry) && !/\.(int-)?spec\.ts$/.test(entry) ? [path] : [];
  });
}

/** What an app's code (and the libraries that talk on its behalf) handles, consumes and otherwise uses. */
function contractUse(app: string): { handled: AnyContract[]; consumed: AnyContract[]; used: AnyContract[] } {
  const dirs = [join(ROOT, 'apps', app, 'src')];
  const code = () => dirs.flatMap(sourceFiles).map((file) => readFileSync(file, 'utf8'));
  if (code().some((text) => text.includes('@gw/paid-generation')))
    dirs.push(join(ROOT, 'libs/paid-generation/src'));
  const handled = new Set<AnyContract>();
  const consumed = new Set<AnyContract>();
  const used = new Set<AnyContract>();
  for (const text of code()) {
    for (const [, decorator, reference] of text.matchAll(
      /(@Handles\w+\(\s*)?\b([A-Z]\w*(?:Contracts|Events)\.\w+)/g,
    )) {
      const contract = contractOf(reference);
      if (!contract) continue;
      const consumer = new RegExp(`\\.subscribe(?:Batches)?\\(\\s*${reference.replace('.', '\\.')}\\b`).test(
        text,
      );
      (decorator ? handled : consumer ? consumed : used).add(contract);
    }
  }
  return { handled: [...handled], consumed: [...consumed], used: [...used] };
}

/** Subjects an app's handlers take that its user may not subscribe to (liveness subjects included). */
export function unsubscribable(handled: AnyContract[], spec: NatsUserSpec): string[] {
  const { subscribe } = natsPermissions(spec);
  return handled
    .flatMap((c) => (c.kind === 'broadcast' ? [c.subject] : [c.subject, livenessSubject(c.subject)]))
    .filter((subject) => !allowed(subscribe, subject));
}

/** Subjects an app sends or publishes to that its user may not publish to. */
export function unpublishable(used: AnyContract[], spec: NatsUserSpec): string[] {
  const { publish } = natsPermissions(spec);
  return used.map((c) => c.subject).filter((subject) => !allowed(publish, subject));
}

/** Users other than the gateway that may publish a credit or admin subject. */
export function creditOrAdminPublishers(users: Record<string, NatsUserSpec>): string[] {
  const subjects = creditAndAdminContracts(contracts).map((c) => c.subject);
  return Object.entries(users)
    .filter(([user]) => user !== 'api-gateway')
    .filter(([, spec]) => subjects.some((subject) => allowed(natsPermissions(spec).publish, subject)))
    .map(([user]) => user);
}

describe('NATS users', () => {
  it('has one user per app that talks on NATS', () => {
    const apps = readdirSync(join(ROOT, 'apps')).filter((app) =>
      existsSync(join(ROOT, 'apps', app, 'src', `${app}.env.ts`)),
    );
    const natsApps = apps.filter((app) =>
      readFileSync(join(ROOT, 'apps', app, 'src', `${app}.env.ts`), 'utf8').match(/ServiceEnv|NatsClientEnv/),
    );
    expect(Object.keys(NATS_USERS).sort()).toEqual(natsApps.sort());
  });

  it(`is what ${NATS_AUTH_CONFIG} holds (regenerate it with npm run nats:config)`, () => {
    expect(readFileSync(join(ROOT, NATS_AUTH_CONFIG), 'utf8')).toBe(renderNatsAuthConfig());
  });

  describe.each(Object.keys(NATS_USERS))('%s', (app) => {
    const use = contractUse(app);
    const spec = NATS_USERS[app];

    it('may subscribe to every subject its handlers take, and to their liveness subjects', () => {
      expect(use.handled.length).toBeGreaterThan(0);
      expect(unsubscribable(use.handled, spec)).toEqual([]);
    });

    it('may publish every request, broadcast and durable event its code sends', () => {
      const sent = use.used.filter((c) => !use.consumed.includes(c));
      expect(unpublishable(sent, spec)).toEqual([]);
    });

    it('has a durable consumer for every durable event it subscribes to', () => {
      expect(use.consumed.filter((c) => !spec.consumesEvents.some((e) => e.subject === c.subject))).toEqual(
        [],
      );
    });
  });

  it('fails a user that may not subscribe to a subject its handlers take (broken fixture)', () => {
    const billing = NATS_USERS.billing;
    const broken = {
      ...billing,
      serves: billing.serves.filter((c) => c !== contracts.BillingContracts.reserve),
    };
    expect(unsubscribable(contractUse('billing').handled, broken)).toEqual([
      contracts.BillingContracts.reserve.subject,
      livenessSubject(contracts.BillingContracts.reserve.subject),
    ]);
  });

  it('fails a user that may not publish what its code sends (broken fixture)', () => {
    const broken = { ...NATS_USERS.auth, calls: [] };
    expect(unpublishable(contractUse('auth').used, broken)).toContain(
      contracts.BillingContracts.setKeyLimits.subject,
    );
  });

  it('lets only the gateway publish credit and admin subjects, and fails a user that may (broken fixture)', () => {
    expect(creditOrAdminPublishers(NATS_USERS)).toEqual([]);
    const broken = {
      ...NATS_USERS,
      inference: { ...NATS_USERS.inference, calls: [contracts.BillingContracts.addCredits] },
      media: { ...NATS_USERS.media, calls: [contracts.AuthContracts.adminCreateUser] },
    };
    expect(creditOrAdminPublishers(broken)).toEqual(['inference', 'media']);
  });

  it('finds every credit and admin subject the contracts name, and one added to them (broken fixture)', () => {
    // Read from the contracts' source text, apart from the exported objects the list is made of.
    const inSource = sourceFiles(join(ROOT, 'libs/contracts/src'))
      .flatMap((file) => [...readFileSync(file, 'utf8').matchAll(/'([a-z]+\.v\d+\.admin\.[a-z0-9.-]+)'/g)])
      .map(([, subject]) => subject);
    const subjects = creditAndAdminContracts(contracts).map((c) => c.subject);
    expect(inSource.length).toBeGreaterThanOrEqual(6);
    expect(subjects).toEqual(
      [...new Set([...inSource, contracts.BillingContracts.addCredits.subject])].sort(),
    );
    const added = contracts.rpc('media.v1.admin.purge-generations', class Purge {});
    expect(
      creditAndAdminContracts({ ...contracts, MediaAdminContracts: { purge: added } }).map((c) => c.subject),
    ).toEqual([...subjects, 'media.v1.admin.purge-generations'].sort());
  });

  it('matches subjects as NATS does', () => {
    expect(subjectMatches('_INBOX.>', '_INBOX.abc.def')).toBe(true);
    expect(subjectMatches('presence.*', 'presence.a.b')).toBe(false);
    expect(subjectMatches('a.b', 'a.b.c')).toBe(false);
    expect(subjectMatches('a.>', 'a')).toBe(false);
  });
});
