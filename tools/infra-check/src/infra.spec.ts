import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
// The Secrets' placeholders are tried against the apps' own env loading.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { loadEnv } from '@gw/platform';
import { IsString } from 'class-validator';
import { type AppEnv, readAppEnv } from './env-classes';
import { NATS_K8S_COPIES } from './generate-nats-config';
import { configMapHash, kustomizationOf, renderKustomization } from './kustomize';
import { NATS_USERS, passwordVariable } from './nats-users';

// Static checks of the deployment files against the apps as they are in the repository: no
// Docker engine or cluster is needed, so they run with the unit tests.

type Manifest = Record<string, any>;

/** Any variable, to ask the apps' own env loading whether a value is a placeholder it refuses. */
class PlaceholderProbe {
  @IsString()
  VALUE!: string;
}

const ROOT = join(__dirname, '../../..');
const K8S = join(ROOT, 'k8s');
const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8');

/** Deployable apps: every Nx application tagged as the gateway or a service (the embedded mode runs alone). */
const DEPLOYABLE_TAGS = ['type:gateway', 'type:service'];
const APPS = readdirSync(join(ROOT, 'apps'))
  .filter((dir) => existsSync(join(ROOT, 'apps', dir, 'project.json')))
  .filter((dir) =>
    (JSON.parse(read(`apps/${dir}/project.json`)).tags ?? []).some((tag: string) =>
      DEPLOYABLE_TAGS.includes(tag),
    ),
  )
  .sort();
/** Liveness (`path`) and readiness (`ready`) of the apps that serve HTTP themselves. */
const HTTP_APPS: Record<string, { port: number; path: string; ready: string }> = {
  'api-gateway': { port: 3000, path: '/api/health', ready: '/api/health/ready' },
  'mock-upstream': { port: 4010, path: '/health', ready: '/health' },
};
const NATS_APPS = APPS.filter((app) => !(app in HTTP_APPS));
const HEALTH_PORT = 8081;
const ENVS = new Map(APPS.map((app) => [app, readAppEnv(ROOT, app)] as const));
const APPS_WITH_ENV = APPS.filter((app) => ENVS.get(app));

const required = (env: AppEnv): string[] =>
  [...env.variables].filter(([, isRequired]) => isRequired).map(([name]) => name);

function labelsMatch(
  selector: Record<string, string> | undefined,
  labels: Record<string, string> | undefined,
): boolean {
  const wanted = Object.entries(selector ?? {});
  return wanted.length > 0 && wanted.every(([key, value]) => labels?.[key] === value);
}

/** Kubernetes quantities (`250m`, `1`, `512Mi`, `1G`) as plain numbers, to compare requests with limits. */
function quantity(value: string | number): number {
  const match = /^([0-9.]+)(m|k|M|G|T|Ki|Mi|Gi|Ti)?$/.exec(String(value));
  if (!match) throw new Error(`not a quantity: ${value}`);
  const factor: Record<string, number> = {
    m: 1e-3,
    k: 1e3,
    M: 1e6,
    G: 1e9,
    T: 1e12,
    Ki: 2 ** 10,
    Mi: 2 ** 20,
    Gi: 2 ** 30,
    Ti: 2 ** 40,
  };
  return Number(match[1]) * (match[2] ? factor[match[2]] : 1);
}

/** Variables a model catalogue reads from inference's environment: `apiKeyEnv` names and `${VAR}` in URLs. */
function catalogueVariables(file: string): string[] {
  const names = new Set<string>();
  const visit = (value: unknown, key?: string): void => {
    if (typeof value === 'string') {
      if (key === 'apiKeyEnv') names.add(value);
      for (const match of value.matchAll(/\$\{([A-Z0-9_]+)\}/g)) names.add(match[1]);
    } else if (value && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) visit(v, Array.isArray(value) ? undefined : k);
    }
  };
  visit(JSON.parse(read(file)));
  return [...names];
}

/** Inference also reads the variables its catalogue names; an env-class default covers one. */
const extraVariables = (app: string, catalogueFile: string | undefined): AppEnv['variables'] =>
  new Map(
    app === 'inference' && catalogueFile
      ? catalogueVariables(catalogueFile).map(
          (name) => [name, !(ENVS.get(app)?.variables.has(name) ?? false)] as const,
        )
      : [],
  );
const withExtras = (env: AppEnv, extras: AppEnv['variables']): AppEnv => ({
  files: env.files,
  variables: new Map([...extras, ...env.variables]),
});

describe('apps', () => {
  it('finds the deployable apps', () => {
    expect(APPS).toEqual(
      expect.arrayContaining([
        'api-gateway',
        'auth',
        'billing',
        'inference',
        'media',
        'mock-upstream',
        'storage',
      ]),
    );
  });
});

type Stage = { name: string; from: string; body: string[] };

/** Instructions with continuation lines joined, grouped by stage; heredoc bodies are kept apart. */
function parseDockerfile(text: string): {
  instructions: string[];
  heredocs: Map<string, string>;
  stages: Stage[];
} {
  const lines = text.split('\n');
  const instructions: string[] = [];
  const heredocs = new Map<string, string>();
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i];
    if (/^\s*(#|$)/.test(line)) continue;
    while (line.endsWith('\\')) line = line.slice(0, -1) + ' ' + lines[++i].trim();
    instructions.push(line.trim());
    const heredoc = /<<-?'?(\w+)'?\s+(\S+)/.exec(line);
    if (heredoc) {
      const body: string[] = [];
      while (lines[++i] !== heredoc[1]) body.push(lines[i]);
      heredocs.set(heredoc[2], body.join('\n'));
    }
  }
  const stages: Stage[] = [];
  for (const instruction of instructions) {
    const from = /^FROM\s+(\S+)(?:\s+AS\s+(\S+))?/i.exec(instruction);
    if (from) stages.push({ from: from[1], name: from[2] ?? '', body: [] });
    else stages.at(-1)?.body.push(instruction);
  }
  return { instructions, heredocs, stages };
}

/** A stage's instructions with those of the stages it is built on, base first. */
function inherited(stages: Stage[], name: string): string[] {
  const s = stages.find((candidate) => candidate.name === name);
  if (!s) return [];
  return [...(stages.some((base) => base.name === s.from) ? inherited(stages, s.from) : []), ...s.body];
}

/** The stages an image starts from: the names of registry images, not of other stages. */
const baseImages = (stages: Stage[]): string[] =>
  stages.filter((s) => !stages.some((other) => other.name === s.from)).map((s) => s.from);

/** Stages that run an npm install (`npm ci` or `npm install`); one shared install means exactly `deps`. */
const installingStages = (stages: Stage[]): string[] =>
  stages.filter((s) => s.body.some((i) => /^RUN .*\bnpm (ci|install|i)\b/.test(i))).map((s) => s.name);

/**
 * Whether a shipped target takes its dependencies from the shared install: node_modules copied
 * from `deps` or a stage built on it, and no install of its own.
 */
function usesSharedInstall(stages: Stage[], target: string): boolean {
  const builtOnDeps = (name: string): boolean => {
    const s = stages.find((candidate) => candidate.name === name);
    return name === 'deps' || (s !== undefined && builtOnDeps(s.from));
  };
  const body = inherited(stages, target);
  return (
    body.some((i) => {
      const copy = /^COPY\s+--from=(\S+)\s+\S*node_modules/.exec(i);
      return copy !== null && builtOnDeps(copy[1]);
    }) && !body.some((i) => /^RUN .*\bnpm (ci|install|i)\b/.test(i))
  );
}

/** OCI labels a target sets (its own and inherited), unquoted. */
function ociLabels(stages: Stage[], target: string): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const i of inherited(stages, target).filter((instruction) => instruction.startsWith('LABEL '))) {
    for (const [, key, value] of i.matchAll(/(org\.opencontainers\.image\.\w+)="([^"]*)"/g))
      labels[key] = value;
  }
  return labels;
}

/** The environment a target's container starts with (its own and inherited ENV). */
function imageEnv(stages: Stage[], target: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const i of inherited(stages, target).filter((instruction) => instruction.startsWith('ENV '))) {
    for (const [, key, value] of i.matchAll(/(\w+)=(\S+)/g)) env[key] = value;
  }
  return env;
}

describe('Dockerfile', () => {
  const text = read('Dockerfile');
  const { instructions, heredocs, stages } = parseDockerfile(text);
  const stage = (name: string) => stages.find((s) => s.name === name);
  const runtime = stages.at(-1);
  const manifest = JSON.parse(read('package.json')) as { description: string; license: string };
  /** The Dockerfile with one replacement, which must change it (a broken fixture). */
  const broken = (from: string | RegExp, to: string) => {
    const changed = text.replace(from, to);
    expect(changed).not.toBe(text);
    return parseDockerfile(changed).stages;
  };

  it('starts every image from Node 22 LTS on bookworm-slim', () => {
    const node22 = (all: Stage[]) => baseImages(all).every((image) => image === 'node:22-bookworm-slim');
    expect(baseImages(stages).length).toBeGreaterThan(0);
    expect(node22(stages)).toBe(true);
    expect(node22(broken('FROM node:22-bookworm-slim AS deps', 'FROM node:20-bookworm-slim AS deps'))).toBe(
      false,
    );
  });

  it('installs once, with npm ci from the lockfile, in a deps stage that no build arg reaches', () => {
    expect(installingStages(stages)).toEqual(['deps']);
    const deps = stage('deps')?.body ?? [];
    expect(deps.some((i) => /^RUN .*\bnpm ci\b.*--ignore-scripts/.test(i))).toBe(true);
    // A build arg declared before the install would key its cache, one install per app again.
    expect(deps.some((i) => i.startsWith('ARG '))).toBe(false);
    expect(
      installingStages(broken(/(FROM deps AS source\n)/, '$1RUN npm install --ignore-scripts\n')),
    ).toEqual(['deps', 'source']);
  });

  it('builds the app chosen by APP with Nx, declaring the arg in the stage that uses it', () => {
    const build = stage('build')?.body ?? [];
    expect(build).toContain('ARG APP');
    expect(build.some((i) => /^RUN .*\bnx build "?\$\{?APP\}?"?/.test(i))).toBe(true);
    expect(runtime?.body).toContain('ARG APP');
    // compose and `docker build --build-arg APP=…` name no target: they get the last stage.
    expect(runtime?.name).toBe('runtime');
  });

  it.each(['runtime', 'embedded'])(
    'ships %s with the shared install, its built app and config/',
    (target) => {
      expect(usesSharedInstall(stages, target)).toBe(true);
      const body = inherited(stages, target);
      const built = target === 'embedded' ? 'embedded' : '\\$\\{?APP\\}?';
      expect(body.some((i) => new RegExp(`^COPY --from=\\S+\\s+\\S*dist/apps/${built}/?\\s`).test(i))).toBe(
        true,
      );
      expect(body.some((i) => /^COPY --from=\S+\s+\S*config\/?\s+\S*config/.test(i))).toBe(true);
      expect(
        usesSharedInstall(
          broken(/(FROM app-base AS runtime\n)/, '$1RUN npm install --omit=dev --ignore-scripts\n'),
          'runtime',
        ),
      ).toBe(false);
    },
  );

  it.each(['runtime', 'embedded'])(
    'labels %s with the OCI source, title, description and licence',
    (target) => {
      const labels = ociLabels(stages, target);
      expect(labels['org.opencontainers.image.source']).toBe('${SOURCE_URL}');
      expect(labels['org.opencontainers.image.description']).toBe(manifest.description);
      expect(labels['org.opencontainers.image.licenses']).toBe(manifest.license);
      expect(labels['org.opencontainers.image.title']).toBe(
        target === 'embedded' ? 'model-gateway-embedded' : 'model-gateway-${APP}',
      );
      // The global ARG is only visible in a stage that declares it again.
      expect(inherited(stages, target)).toContain('ARG SOURCE_URL');
      const unlabelled = ociLabels(
        broken(/ \\\n\s*org\.opencontainers\.image\.licenses="[^"]*"/, ''),
        target,
      );
      expect(unlabelled['org.opencontainers.image.licenses']).toBeUndefined();
    },
  );

  it('has an embedded target that listens on all interfaces, on the port it exposes, with its state on a volume', () => {
    const listens = (all: Stage[]) => {
      const env = imageEnv(all, 'embedded');
      const body = inherited(all, 'embedded');
      return (
        env.HOST === '0.0.0.0' &&
        body.includes(`EXPOSE ${env.PORT}`) &&
        body.includes(`VOLUME ${env.DATA_DIR}`) &&
        env.APP === 'embedded'
      );
    };
    expect(listens(stages)).toBe(true);
    expect(listens(broken('HOST=0.0.0.0 ', ''))).toBe(false);
    expect(stage('embedded-build')?.body.some((i) => /^RUN .*\bnx build embedded\b/.test(i))).toBe(true);
  });

  it.each(['runtime', 'embedded'])(
    'runs %s as a non-root user in production mode with a healthcheck and `node main.js`',
    (target) => {
      const body = inherited(stages, target);
      const user =
        body
          .filter((i) => i.startsWith('USER '))
          .at(-1)
          ?.split(/\s+/)[1] ?? 'root';
      expect(user.split(':')[0]).not.toMatch(/^(root|0)$/);
      expect(imageEnv(stages, target).NODE_ENV).toBe('production');
      expect(body.some((i) => i.startsWith('EXPOSE '))).toBe(true);
      expect(body.some((i) => i.startsWith('HEALTHCHECK '))).toBe(true);
      expect(body.at(-1)).toBe('CMD ["node", "main.js"]');
    },
  );

  it('keeps dependencies, build output and local state out of the build context', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .map((l) => l.trim());
    expect(ignored).toEqual(expect.arrayContaining(['node_modules', 'dist', '.data', '.nx']));
  });

  describe('healthcheck script', () => {
    const HEALTHCHECK = /HEALTHCHECK .*CMD \["node", "([^"]+)"\]/;
    const scriptPath = instructions.map((i) => HEALTHCHECK.exec(i)?.[1]).find(Boolean) ?? '';
    let dir: string;
    let server: Server;
    let port: number;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'infra-healthcheck-'));
      writeFileSync(join(dir, 'healthcheck.cjs'), heredocs.get(scriptPath) ?? '');
      const healthy = new Set(['/api/health', '/health', '/readyz']);
      server = createServer((req, res) => res.writeHead(healthy.has(req.url ?? '') ? 200 : 404).end());
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as AddressInfo).port;
    });

    afterAll(async () => {
      await new Promise((resolve) => server.close(resolve));
      rmSync(dir, { recursive: true, force: true });
    });

    /** Runs the script the image runs; it resolves to the exit code. */
    const probe = (env: Record<string, string>): Promise<number> =>
      new Promise((resolve) => {
        execFile(
          process.execPath,
          [join(dir, 'healthcheck.cjs')],
          { env: { PATH: process.env.PATH, ...env } },
          (err) => resolve(err ? Number((err as { code?: number }).code ?? 1) : 0),
        );
      });

    it('is written into the image by the Dockerfile', () => {
      expect(heredocs.has(scriptPath)).toBe(true);
    });

    it('probes each app on its own health endpoint', async () => {
      const serverPath = (path: string) =>
        new Promise<number>((resolve) => {
          server.once('request', (req) => resolve(req.url === path ? 0 : 1));
        });
      // The embedded mode serves the gateway's routes.
      const httpApps = [...Object.entries(HTTP_APPS), ['embedded', HTTP_APPS['api-gateway']] as const];
      for (const [app, { path }] of httpApps) {
        const seen = serverPath(path);
        await expect(probe({ APP: app, PORT: String(port) })).resolves.toBe(0);
        await expect(seen).resolves.toBe(0);
      }
      const seen = serverPath('/readyz');
      await expect(probe({ APP: 'billing', HEALTH_PORT: String(port) })).resolves.toBe(0);
      await expect(seen).resolves.toBe(0);
    });

    it('fails when nothing answers, and passes a service without a health endpoint', async () => {
      await expect(probe({ APP: 'api-gateway', PORT: '1' })).resolves.not.toBe(0);
      await expect(probe({ APP: 'billing', HEALTH_PORT: '0' })).resolves.toBe(0);
    });
  });
});

/** What SIGTERM may take (SHUTDOWN_GRACE_MS in seconds) and what Kubernetes must wait for beyond it. */
const SHUTDOWN_GRACE_S = 600;
const PRE_STOP_S = 10;
/** The platform's own closing bound after the grace (shutdown-signal.ts). */
const CLOSING_S = 15;
describe('docker-compose.yml', () => {
  // Compose resolves `<<` merge keys; the YAML 1.2 default would leave them as plain keys.
  const compose = parse(read('docker-compose.yml'), { merge: true }) as Manifest;
  const services: Record<string, Manifest> = compose.services ?? {};

  const environment = (service: Manifest): Record<string, string> => {
    const env: Record<string, string | number | boolean | null> | string[] = service.environment ?? {};
    if (!Array.isArray(env))
      return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, String(v ?? '')]));
    return Object.fromEntries(
      env.map((entry: string) => [entry.split('=')[0], entry.slice(entry.indexOf('=') + 1)]),
    );
  };
  const dependsOn = (service: Manifest): Record<string, { condition?: string }> =>
    Array.isArray(service.depends_on)
      ? Object.fromEntries(service.depends_on.map((name: string) => [name, {}]))
      : (service.depends_on ?? {});
  const builtFromDockerfile = (service: Manifest): boolean =>
    service.build?.context === '.' && (service.build?.dockerfile ?? 'Dockerfile') === 'Dockerfile';

  it.each(APPS)('builds %s from the Dockerfile with its APP build arg', (app) => {
    const service = services[app];
    expect(service).toBeDefined();
    expect(builtFromDockerfile(service)).toBe(true);
    expect(service.build.args?.APP).toBe(app);
    expect(environment(service).LOG_FORMAT).toBe('json');
  });

  it.each(APPS_WITH_ENV)(
    'gives %s every variable its env class requires, and none it does not declare',
    (app) => {
      const given = environment(services[app]);
      const env = withExtras(ENVS.get(app) as AppEnv, extraVariables(app, given.CATALOGUE_FILE));
      const provided = Object.keys(given);
      expect(required(env).filter((name) => !provided.includes(name))).toEqual([]);
      expect(provided.filter((name) => !env.variables.has(name))).toEqual([]);
    },
  );

  it.each(NATS_APPS)('turns on the health endpoint of %s', (app) => {
    expect(environment(services[app]).HEALTH_PORT).toBe(String(HEALTH_PORT));
  });

  it('waits only for services that exist, and for health only where a healthcheck is defined', () => {
    for (const [name, service] of Object.entries(services)) {
      for (const [target, { condition }] of Object.entries(dependsOn(service))) {
        expect({ name, target, exists: target in services }).toEqual({ name, target, exists: true });
        if (condition === 'service_healthy') {
          const checked = Boolean(services[target].healthcheck) || builtFromDockerfile(services[target]);
          expect({ name, target, checked }).toEqual({ name, target, checked: true });
        }
      }
    }
  });

  it('points every URL an app is given at a compose service', () => {
    for (const app of APPS) {
      for (const [name, value] of Object.entries(environment(services[app]))) {
        const url = /^[a-z]+:\/\/(?:[^@/]*@)?([^:/]+)/.exec(value);
        if (url) expect({ app, name, host: url[1] in services }).toEqual({ app, name, host: true });
      }
    }
  });

  it('runs NATS with JetStream on a volume', () => {
    const nats = services.nats;
    const command: string[] = Array.isArray(nats.command) ? nats.command : String(nats.command).split(/\s+/);
    expect(command).toContain('-js');
    const storeDir = command[command.indexOf('-sd') + 1];
    expect(storeDir).toBeDefined();
    expect((nats.volumes ?? []).some((v: string) => v.endsWith(`:${storeDir}`))).toBe(true);
    expect(nats.healthcheck).toBeDefined();
  });

  /** Apps whose NATS user or password is not the one the NATS service's generated config defines for them. */
  const natsUserMismatches = (all: Record<string, Manifest>): string[] => {
    const server = environment(all.nats ?? {});
    return Object.keys(NATS_USERS).filter((app) => {
      const env = environment(all[app] ?? {});
      const variable = passwordVariable(app);
      return (
        env.NATS_USER !== app ||
        !server[variable]?.startsWith(`\${${variable}:?`) ||
        env.NATS_PASSWORD !== server[variable]
      );
    });
  };

  it('runs NATS with the generated users, each app connecting as its own with a required password', () => {
    const nats = services.nats;
    expect((nats.volumes ?? []).some((v: string) => v.startsWith('./deploy/nats/auth.conf:'))).toBe(true);
    expect(natsUserMismatches(services)).toEqual([]);
    const swapped = {
      ...services,
      inference: {
        ...services.inference,
        environment: { ...environment(services.inference), NATS_USER: 'billing' },
      },
    };
    expect(natsUserMismatches(swapped)).toEqual(['inference']);
  });

  /** Apps that compose would kill before a request in flight (up to 600 s) may finish. */
  const cutShort = (all: Record<string, Manifest>): string[] =>
    NATS_APPS.concat('api-gateway')
      .filter((app) => app in all)
      .filter((app) => {
        const match = /^(\d+)(s|m)$/.exec(String(all[app].stop_grace_period ?? '10s'));
        const seconds = match ? Number(match[1]) * (match[2] === 'm' ? 60 : 1) : 0;
        return seconds < SHUTDOWN_GRACE_S + CLOSING_S;
      });

  it('lets each app finish its work in flight when it is stopped', () => {
    expect(cutShort(services)).toEqual([]);
    expect(cutShort({ ...services, billing: { ...services.billing, stop_grace_period: '10s' } })).toEqual([
      'billing',
    ]);
  });

  /**
   * Every secret compose hands out: the apps' shared secrets, the NATS passwords, PostgreSQL's password
   * (in every DATABASE_URL too) and the S3 credentials (SeaweedFS's admin identity and the apps').
   */
  const COMPOSE_SECRETS = [
    'JWT_SECRET',
    'ADMIN_TOKEN',
    ...Object.keys(NATS_USERS).map(passwordVariable),
    'POSTGRES_PASSWORD',
    'S3_ACCESS_KEY_ID',
    'S3_SECRET_ACCESS_KEY',
  ];
  /**
   * Secrets compose falls back on (a value any reader of the repository knows) instead of requiring,
   * or that it writes out as a literal: each must appear, and only as `${NAME:?…}`.
   */
  const unrequiredSecrets = (text: string): string[] => {
    const references = (name: string) => [
      ...text.matchAll(new RegExp(`\\$\\{${name}(?![A-Z0-9_])([^}]*)\\}`, 'g')),
    ];
    const literal = (name: string) => new RegExp(`^\\s*${name}:\\s*(?!\\$\\{)\\S`, 'm').test(text);
    return COMPOSE_SECRETS.filter(
      (name) =>
        references(name).length === 0 ||
        references(name).some(([, rest]) => !rest.startsWith(':?')) ||
        literal(name),
    );
  };

  it('requires its secrets instead of falling back on known values (broken fixtures fail)', () => {
    const text = read('docker-compose.yml');
    expect(unrequiredSecrets(text)).toEqual([]);
    expect(
      unrequiredSecrets(text.replace(/\$\{JWT_SECRET:\?[^}]*\}/g, '${JWT_SECRET:-jwt-change-me}')),
    ).toEqual(['JWT_SECRET']);
    // The fallbacks compose had for its own PostgreSQL and S3 server.
    const fallbacks = text
      .replace(/\$\{POSTGRES_PASSWORD:\?[^}]*\}/, '${POSTGRES_PASSWORD:-gateway-local}')
      .replace(/\$\{S3_ACCESS_KEY_ID:\?[^}]*\}/, '${S3_ACCESS_KEY_ID-gateway-local}')
      .replace(/\$\{S3_SECRET_ACCESS_KEY:\?[^}]*\}/, '${S3_SECRET_ACCESS_KEY}');
    expect(unrequiredSecrets(fallbacks)).toEqual([
      'POSTGRES_PASSWORD',
      'S3_ACCESS_KEY_ID',
      'S3_SECRET_ACCESS_KEY',
    ]);
    // A secret written out, not taken from the environment.
    expect(
      unrequiredSecrets(
        text.replace(
          /S3_SECRET_ACCESS_KEY: \$\{S3_SECRET_ACCESS_KEY:\?[^}]*\}/,
          'S3_SECRET_ACCESS_KEY: gateway-local-secret',
        ),
      ),
    ).toEqual(['S3_SECRET_ACCESS_KEY']);
  });

  it('runs Postgres 16 with a healthcheck, and the apps reach its database', () => {
    const postgres = services.postgres;
    expect(postgres.image).toMatch(/^postgres:16\b/);
    expect(postgres.healthcheck?.test).toBeDefined();
    const { POSTGRES_USER, POSTGRES_DB } = environment(postgres);
    for (const app of APPS) {
      const url = environment(services[app]).DATABASE_URL;
      if (url)
        expect(url).toMatch(new RegExp(`^postgres://${POSTGRES_USER}:[^@]+@postgres:5432/${POSTGRES_DB}$`));
    }
  });

  it('serves S3 from a maintained server, not the MinIO images that stopped in October 2025', () => {
    expect(Object.values(services).filter((s) => String(s.image).startsWith('minio/'))).toEqual([]);
    expect(String(services.seaweedfs.image)).toMatch(/^chrislusf\/seaweedfs:\d+\.\d+$/);
    for (const app of APPS.filter((a) => environment(services[a]).S3_BUCKET)) {
      expect(environment(services[app]).S3_ENDPOINT).toBe('http://seaweedfs:8333');
    }
  });

  it('creates the S3 bucket once the S3 server is healthy, before storage and media start', () => {
    const oneShot = Object.entries(services).find(([, s]) => String(s.image).startsWith('amazon/aws-cli'));
    expect(oneShot).toBeDefined();
    const [name, bucketJob] = oneShot as [string, Manifest];
    expect(dependsOn(bucketJob).seaweedfs?.condition).toBe('service_healthy');
    expect(services.seaweedfs.healthcheck).toBeDefined();
    for (const app of APPS.filter((a) => environment(services[a]).S3_BUCKET)) {
      expect(dependsOn(services[app])[name]?.condition).toBe('service_completed_successfully');
      expect([bucketJob.command].flat().join(' ')).toContain(
        `--bucket ${environment(services[app]).S3_BUCKET}`,
      );
    }
  });

  it('gives auth and the gateway the same JWT secret, and inference a catalogue that exists', () => {
    expect(environment(services.auth).JWT_SECRET).toBe(environment(services['api-gateway']).JWT_SECRET);
    expect(existsSync(join(ROOT, environment(services.inference).CATALOGUE_FILE))).toBe(true);
  });

  it('publishes the gateway on port 3000', () => {
    expect(services['api-gateway'].ports).toContain('3000:3000');
    expect(environment(services['api-gateway']).PORT).toBe('3000');
  });
});

const OVERLAYS = ['dev', 'prod'] as const;
const secretValues = (secret: Manifest | undefined): Record<string, string> => ({
  ...Object.fromEntries(
    Object.entries(secret?.data ?? {}).map(([k, v]) => [k, Buffer.from(String(v), 'base64').toString()]),
  ),
  ...(secret?.stringData ?? {}),
});

/** A Deployment's or a Job's pod spec. */
const podOf = (m: Manifest): Manifest => m.spec.template.spec;
const containersOf = (m: Manifest): Manifest[] => podOf(m).containers;
const envValue = (manifests: Manifest[], container: Manifest, name: string): string | undefined => {
  const entry = (container.env ?? []).find((e: Manifest) => e.name === name);
  if (!entry) return undefined;
  if (entry.value !== undefined) return String(entry.value);
  const ref = entry.valueFrom?.configMapKeyRef ?? entry.valueFrom?.secretKeyRef;
  const kind = entry.valueFrom?.configMapKeyRef ? 'ConfigMap' : 'Secret';
  const source = manifests.find((m) => m.kind === kind && m.metadata.name === ref?.name);
  return source ? (kind === 'ConfigMap' ? source.data?.[ref.key] : secretValues(source)[ref.key]) : undefined;
};

/** Why a rollout could cut a request: a pod that Kubernetes kills before its work in flight may finish. */
function rolloutProblems(manifests: Manifest[]): string[] {
  const problems: string[] = [];
  for (const d of manifests.filter((m) => m.kind === 'Deployment')) {
    const name = d.metadata.name;
    const grace = podOf(d).terminationGracePeriodSeconds ?? 30;
    const [c] = containersOf(d);
    const sleep = Number(
      c.lifecycle?.preStop?.exec?.command?.at(-1) ?? c.lifecycle?.preStop?.sleep?.seconds ?? 0,
    );
    const appGrace = Number(envValue(manifests, c, 'SHUTDOWN_GRACE_MS') ?? 600_000) / 1000;
    if (name !== 'mock-upstream' && appGrace < SHUTDOWN_GRACE_S)
      problems.push(`${name}: SHUTDOWN_GRACE_MS below the longest request`);
    if (sleep < PRE_STOP_S) problems.push(`${name}: no preStop sleep while endpoints are removed`);
    if (name !== 'mock-upstream' && grace < appGrace + sleep + CLOSING_S)
      problems.push(`${name}: terminationGracePeriodSeconds ${grace} too short`);
  }
  for (const ingress of manifests.filter((m) => m.kind === 'Ingress')) {
    const annotations = ingress.metadata.annotations ?? {};
    for (const timeout of ['proxy-read-timeout', 'proxy-send-timeout']) {
      if (Number(annotations[`nginx.ingress.kubernetes.io/${timeout}`] ?? 60) < SHUTDOWN_GRACE_S)
        problems.push(`Ingress ${ingress.metadata.name}: ${timeout} below the longest request`);
    }
  }
  return problems;
}

/** Apps whose NATS credentials are not their own user's, or that the NATS server does not know. */
function natsCredentialProblems(manifests: Manifest[]): string[] {
  const nats = manifests.find((m) => m.kind === 'StatefulSet' && m.metadata.name === 'nats');
  if (!nats) return ['no NATS StatefulSet'];
  const [server] = containersOf(nats);
  return Object.keys(NATS_USERS).flatMap((app) => {
    const d = manifests.find((m) => m.kind === 'Deployment' && m.metadata.name === app);
    if (!d) return [`${app}: not deployed`];
    const [c] = containersOf(d);
    const user = envValue(manifests, c, 'NATS_USER');
    const password = envValue(manifests, c, 'NATS_PASSWORD');
    const passwordRef = (c.env ?? []).find((e: Manifest) => e.name === 'NATS_PASSWORD')?.valueFrom
      ?.secretKeyRef;
    const serverRef = (server.env ?? []).find((e: Manifest) => e.name === passwordVariable(app))?.valueFrom
      ?.secretKeyRef;
    const problems: string[] = [];
    if (user !== app) problems.push(`${app}: connects as ${user}`);
    if (!password || !passwordRef || JSON.stringify(passwordRef) !== JSON.stringify(serverRef))
      problems.push(`${app}: its password is not the one the NATS server is given`);
    if (passwordRef && passwordRef.name !== `nats-user-${app}`) problems.push(`${app}: shares a Secret`);
    return problems;
  });
}

type PodRef = { name: string; labels: Record<string, string> };

function selects(selector: Manifest | undefined, labels: Record<string, string>): boolean {
  if (!selector) return false;
  const matchLabels = Object.entries(selector.matchLabels ?? {}).every(([k, v]) => labels[k] === v);
  const matchExpressions = (selector.matchExpressions ?? []).every((e: Manifest) =>
    e.operator === 'In'
      ? e.values.includes(labels[e.key])
      : e.operator === 'NotIn'
        ? !e.values.includes(labels[e.key])
        : true,
  );
  return matchLabels && matchExpressions;
}

const portAllowed = (ports: Manifest[] | undefined, port: number) =>
  !ports || ports.some((p) => p.port === undefined || p.port === port);

/**
 * What the NetworkPolicies let through, as Kubernetes evaluates them: traffic needs an egress rule
 * of a policy selecting the source (or no Egress policy selecting it) and an ingress rule of one
 * selecting the destination. `to` is a pod of the namespace, or `public` (an internet address).
 */
function reaches(
  policies: Manifest[],
  from: PodRef | 'outside',
  to: PodRef | 'public',
  port: number,
): boolean {
  const peerMatches = (peers: Manifest[] | undefined, target: PodRef | 'public' | 'outside'): boolean =>
    !peers ||
    peers.some((peer) => {
      if (target === 'public' || target === 'outside') {
        if (!peer.ipBlock) return false;
        return target === 'outside' || peer.ipBlock.cidr === '0.0.0.0/0';
      }
      if (peer.ipBlock || peer.namespaceSelector) return false;
      return selects(peer.podSelector, target.labels);
    });
  const egressOk =
    from === 'outside' ||
    (() => {
      const applying = policies.filter(
        (p) => (p.spec.policyTypes ?? []).includes('Egress') && selects(p.spec.podSelector, from.labels),
      );
      return (
        applying.length === 0 ||
        applying.some((p) =>
          (p.spec.egress ?? []).some(
            (rule: Manifest) => portAllowed(rule.ports, port) && peerMatches(rule.to, to),
          ),
        )
      );
    })();
  const ingressOk =
    to === 'public' ||
    (() => {
      const applying = policies.filter(
        (p) =>
          (p.spec.policyTypes ?? ['Ingress']).includes('Ingress') && selects(p.spec.podSelector, to.labels),
      );
      return (
        applying.length === 0 ||
        applying.some((p) =>
          (p.spec.ingress ?? []).some(
            (rule: Manifest) => portAllowed(rule.ports, port) && peerMatches(rule.from, from),
          ),
        )
      );
    })();
  return egressOk && ingressOk;
}

/** The pods of the manifests, Deployments, StatefulSets and Jobs alike. */
const podsOf = (manifests: Manifest[]): PodRef[] =>
  manifests
    .filter((m) => ['Deployment', 'StatefulSet', 'Job'].includes(m.kind))
    .map((m) => ({ name: m.metadata.name, labels: m.spec.template.metadata.labels }));

/** Who reaches what: a map from each guarded door to the pods that get through it, sorted. */
function reachability(manifests: Manifest[]): Record<string, string[]> {
  const policies = manifests.filter((m) => m.kind === 'NetworkPolicy');
  const pods = podsOf(manifests);
  const pod = (name: string) => pods.find((p) => p.name === name);
  const who = (test: (p: PodRef) => boolean) =>
    pods
      .filter(test)
      .map((p) => p.name)
      .sort();
  const services = ['auth', 'billing', 'inference', 'media', 'storage'].map(pod).filter(Boolean) as PodRef[];
  return {
    'from outside': who((p) =>
      [3000, 4010, 4222, 8081].some((port) => reaches(policies, 'outside', p, port)),
    ),
    nats: who((p) => p.name !== 'nats' && reaches(policies, p, pod('nats') as PodRef, 4222)),
    'services health': who((p) => services.some((s) => s !== p && reaches(policies, p, s, 8081))),
    postgres: who((p) => reaches(policies, p, 'public', 5432)),
    'internet over https': who((p) => reaches(policies, p, 'public', 443)),
  };
}

/** Path prefixes the Ingresses route, each with the Service and port it reaches (`name:port`). */
const ingressRoutes = (manifests: Manifest[]): string[] =>
  manifests
    .filter((m) => m.kind === 'Ingress')
    .flatMap((i) =>
      i.spec.rules.flatMap((r: Manifest) =>
        r.http.paths.map((p: Manifest) => {
          const { name, port } = p.backend.service;
          const service = manifests.find((m) => m.kind === 'Service' && m.metadata.name === name);
          const number =
            service?.spec.ports.find((sp: Manifest) => sp.name === port.name)?.port ?? port.number;
          return `${p.path} -> ${name}:${number}`;
        }),
      ),
    )
    .sort();

/** The same for the HTTPRoutes (PathPrefix matches only: the routes use no other kind). */
const httpRoutes = (manifests: Manifest[]): string[] =>
  manifests
    .filter((m) => m.kind === 'HTTPRoute')
    .flatMap((route) =>
      route.spec.rules.flatMap((rule: Manifest) =>
        rule.matches.flatMap((match: Manifest) =>
          rule.backendRefs.map(
            (b: Manifest) =>
              `${match.path.type === 'PathPrefix' ? match.path.value : `${match.path.type} ${match.path.value}`} -> ${b.name}:${b.port}`,
          ),
        ),
      ),
    )
    .sort();

/** Paths of the Ingress or the HTTPRoute that reach the operator API, the API docs or the metrics. */
const privatePathsRouted = (manifests: Manifest[]): string[] =>
  [...new Set([...ingressRoutes(manifests), ...httpRoutes(manifests)].map((r) => r.split(' -> ')[0]))].filter(
    (path) =>
      ['/api/admin', '/api/docs', '/metrics'].some(
        (hidden) =>
          hidden.startsWith(path.replace(/\/$/, '') + '/') ||
          hidden === path ||
          hidden.startsWith(path === '/' ? '/' : `${path}/`),
      ),
  );

/** Why an HTTPRoute could cut a request the Ingress would let finish: a rule that gives up before the longest request. */
const routeTimeoutProblems = (manifests: Manifest[]): string[] =>
  manifests
    .filter((m) => m.kind === 'HTTPRoute')
    .flatMap((route) =>
      route.spec.rules
        .filter((rule: Manifest) =>
          ['request', 'backendRequest'].some(
            (timeout) => seconds(rule.timeouts?.[timeout] ?? '15s') < SHUTDOWN_GRACE_S,
          ),
        )
        .map(() => `HTTPRoute ${route.metadata.name}: a rule times out before the longest request`),
    );

/** A Gateway API duration (`630s`, `10m`, `1h`) in seconds. */
function seconds(duration: string): number {
  const unit: Record<string, number> = { ms: 1e-3, s: 1, m: 60, h: 3600 };
  return [...duration.matchAll(/(\d+)(ms|s|m|h)/g)].reduce((sum, [, n, u]) => sum + Number(n) * unit[u], 0);
}

/** Names of the ConfigMaps the workloads' pods read (env, envFrom, volumes). */
function configMapsRead(manifests: Manifest[]): Set<string> {
  const names = new Set<string>();
  for (const m of manifests.filter((w) => ['Deployment', 'StatefulSet', 'Job'].includes(w.kind))) {
    const pod = podOf(m);
    for (const c of [...(pod.initContainers ?? []), ...pod.containers]) {
      for (const e of c.env ?? [])
        if (e.valueFrom?.configMapKeyRef) names.add(e.valueFrom.configMapKeyRef.name);
      for (const e of c.envFrom ?? []) if (e.configMapRef) names.add(e.configMapRef.name);
    }
    for (const v of pod.volumes ?? []) if (v.configMap) names.add(v.configMap.name);
  }
  return names;
}

/** ConfigMaps the pods read whose name is not kustomize's hash of their content: a change would not roll the pods. */
const unhashedConfigMaps = (manifests: Manifest[]): string[] =>
  [...configMapsRead(manifests)]
    .filter((name) => {
      const configMap = manifests.find((m) => m.kind === 'ConfigMap' && m.metadata.name === name);
      return !configMap || !name.endsWith(`-${configMapHash(configMap)}`);
    })
    .sort();

/** The settings every app reads, under the name its content gives it. */
const settingsOf = (manifests: Manifest[]): Manifest | undefined =>
  manifests.find(
    (m) => m.kind === 'ConfigMap' && /^model-gateway-config-[a-z0-9]{10}$/.test(m.metadata.name),
  );

/** The topology keys a rollout's replicas must spread over, zones first. */
const SPREAD_KEYS = ['topology.kubernetes.io/zone', 'kubernetes.io/hostname'];

/** Deployments whose replicas may pile up in one zone or on one node: no spread constraint over their own pods. */
const unspreadDeployments = (manifests: Manifest[]): string[] =>
  manifests
    .filter((m) => m.kind === 'Deployment')
    .filter((d) => {
      const constraints: Manifest[] = podOf(d).topologySpreadConstraints ?? [];
      return !SPREAD_KEYS.every((key) =>
        constraints.some(
          (c) =>
            c.topologyKey === key &&
            c.maxSkew === 1 &&
            labelsMatch(c.labelSelector?.matchLabels, d.spec.template.metadata.labels),
        ),
      );
    })
    .map((d) => d.metadata.name)
    .sort();

/** The longest start a startup probe must wait out: migrations applied at start, or a slow dependency. */
const STARTUP_BUDGET_S = 600;

/**
 * Why liveness could kill an app that is still starting (migrating): no startup probe on its
 * readiness endpoint (which answers `starting` until the app serves), one that gives up too early,
 * or a liveness probe that guesses the start with a delay instead.
 */
function startupProblems(manifests: Manifest[]): string[] {
  return manifests
    .filter((m) => m.kind === 'Deployment')
    .flatMap((d) => {
      const name = d.metadata.name;
      const [c] = containersOf(d);
      const probe = c.startupProbe;
      if (!probe) return [`${name}: no startup probe`];
      const problems: string[] = [];
      if (JSON.stringify(probe.httpGet) !== JSON.stringify(c.readinessProbe?.httpGet))
        problems.push(`${name}: the startup probe does not ask readiness`);
      if ((probe.periodSeconds ?? 10) * (probe.failureThreshold ?? 3) < STARTUP_BUDGET_S)
        problems.push(`${name}: the startup probe gives up before ${STARTUP_BUDGET_S} s`);
      if (c.livenessProbe?.initialDelaySeconds)
        problems.push(`${name}: liveness guesses the start with a delay`);
      return problems;
    });
}

const withoutKind = (manifests: Manifest[], kind: string, name?: string) =>
  manifests.filter((m) => !(m.kind === kind && (name === undefined || m.metadata.name === name)));
const clone = (manifests: Manifest[]): Manifest[] => JSON.parse(JSON.stringify(manifests));

describe('k8s/', () => {
  it('lists every manifest file in a kustomization, and only files that exist', () => {
    const listed = new Set<string>();
    for (const dir of [join(K8S, 'base'), ...OVERLAYS.map((o) => join(K8S, 'overlays', o))]) {
      const kustomization = kustomizationOf(dir);
      for (const entry of [
        ...(kustomization.resources ?? []),
        ...(kustomization.patches ?? []).map((p: Manifest) => p.path),
        ...(kustomization.configMapGenerator ?? []).flatMap((g: Manifest) => [
          ...(g.envs ?? []),
          ...(g.files ?? []).map((file: string) => file.slice(file.indexOf('=') + 1)),
        ]),
      ]) {
        expect(existsSync(join(dir, entry))).toBe(true);
        listed.add(join(dir, entry));
      }
    }
    const files = ['base', ...OVERLAYS.map((o) => `overlays/${o}`)].flatMap((dir) =>
      readdirSync(join(K8S, dir))
        .filter((file) => /\.(ya?ml|env)$/.test(file) && file !== 'kustomization.yaml')
        .map((file) => join(K8S, dir, file)),
    );
    expect(files.filter((file) => !listed.has(file))).toEqual([]);
  });

  it('renames the settings when config.env changes, and every Deployment follows the new name', () => {
    const copy = mkdtempSync(join(tmpdir(), 'infra-k8s-'));
    try {
      cpSync(K8S, copy, { recursive: true });
      const env = join(copy, 'base/config.env');
      writeFileSync(env, readFileSync(env, 'utf8').replace(/^LOG_LEVEL=.*$/m, 'LOG_LEVEL=debug'));
      const before = renderKustomization(join(K8S, 'overlays/prod'));
      const after = renderKustomization(join(copy, 'overlays/prod'));
      const name = (manifests: Manifest[]) => (settingsOf(manifests) as Manifest).metadata.name;
      expect(name(after)).not.toBe(name(before));
      for (const d of after.filter((m) => m.kind === 'Deployment'))
        expect({ app: d.metadata.name, reads: configMapsRead([d]).has(name(after)) }).toEqual({
          app: d.metadata.name,
          reads: true,
        });
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  it('gives the NATS of k8s/base the config compose runs with (regenerate it with npm run nats:config)', () => {
    for (const [copy, source] of Object.entries(NATS_K8S_COPIES))
      expect({ copy, same: existsSync(join(ROOT, copy)) && read(copy) === read(source) }).toEqual({
        copy,
        same: true,
      });
  });

  describe.each(OVERLAYS)('overlays/%s', (overlay) => {
    const manifests = renderKustomization(join(K8S, 'overlays', overlay));
    const ofKind = (kind: string) => manifests.filter((m) => m.kind === kind);
    const deployments = ofKind('Deployment');
    const deployment = (name: string) => deployments.find((d) => d.metadata.name === name);
    const containers = (d: Manifest): Manifest[] => d.spec.template.spec.containers;
    const hpaFor = (name: string) =>
      ofKind('HorizontalPodAutoscaler').find((h) => h.spec.scaleTargetRef.name === name);
    const configMap = settingsOf(manifests) as Manifest;
    const secret = ofKind('Secret').find((m) => m.metadata.name === 'model-gateway-secrets');
    const secretData = secretValues(secret);
    const deployed = APPS.filter((app) => overlay === 'dev' || app !== 'mock-upstream');

    const containerEnv = (container: Manifest): string[] => [
      ...(container.env ?? []).map((e: Manifest) => e.name),
      ...(container.envFrom ?? []).flatMap((source: Manifest) => {
        const from = source.configMapRef ? ofKind('ConfigMap') : ofKind('Secret');
        const ref = source.configMapRef ?? source.secretRef;
        const target = from.find((m) => m.metadata.name === ref.name);
        return Object.keys({ ...target?.data, ...target?.stringData }).map(
          (key) => (source.prefix ?? '') + key,
        );
      }),
    ];
    const portOf = (container: Manifest, port: string | number): number | undefined =>
      (container.ports ?? []).find((p: Manifest) => p.name === port || p.containerPort === port)
        ?.containerPort;

    it('puts everything into the namespace it creates', () => {
      const [namespace] = ofKind('Namespace');
      for (const m of manifests)
        if (m.kind !== 'Namespace') expect(m.metadata.namespace).toBe(namespace.metadata.name);
    });

    it.each(deployed)('deploys %s from its own tagged image', (app) => {
      const d = deployment(app);
      expect(d).toBeDefined();
      const images = containers(d as Manifest).map((c) => String(c.image));
      expect(images).toContainEqual(expect.stringMatching(new RegExp(`^model-gateway/${app}:\\d`)));
    });

    describe.each(deployed)('the %s Deployment', (app) => {
      const d = deployment(app) as Manifest;

      it('selects the pods its template labels', () => {
        expect(labelsMatch(d.spec.selector.matchLabels, d.spec.template.metadata.labels)).toBe(true);
      });

      it('has HTTP readiness and liveness probes on a declared container port', () => {
        for (const c of containers(d)) {
          for (const probe of [c.readinessProbe, c.livenessProbe]) {
            expect(probe?.httpGet?.path).toMatch(/^\//);
            expect(portOf(c, probe.httpGet.port)).toBeDefined();
          }
        }
      });

      it('probes the endpoint the app serves, on the port it is told to listen on', () => {
        const [c] = containers(d);
        const value = (name: string) => c.env?.find((e: Manifest) => e.name === name)?.value;
        if (app in HTTP_APPS) {
          const { port, path, ready } = HTTP_APPS[app];
          expect(c.readinessProbe.httpGet.path).toBe(ready);
          expect(c.livenessProbe.httpGet.path).toBe(path);
          expect(portOf(c, c.readinessProbe.httpGet.port)).toBe(port);
          expect(value('PORT')).toBe(String(port));
        } else {
          expect(c.readinessProbe.httpGet.path).toBe('/readyz');
          expect(c.livenessProbe.httpGet.path).toBe('/healthz');
          expect(portOf(c, c.readinessProbe.httpGet.port)).toBe(HEALTH_PORT);
          expect(value('HEALTH_PORT')).toBe(String(HEALTH_PORT));
        }
      });

      it('requests and limits CPU and memory, requests within limits', () => {
        for (const c of containers(d)) {
          for (const resource of ['cpu', 'memory']) {
            const request = c.resources?.requests?.[resource];
            const limit = c.resources?.limits?.[resource];
            expect(request).toBeDefined();
            expect(limit).toBeDefined();
            expect(quantity(request)).toBeLessThanOrEqual(quantity(limit));
          }
        }
      });

      it('runs as non-root', () => {
        const pod = d.spec.template.spec.securityContext ?? {};
        for (const c of containers(d)) {
          const context = { ...pod, ...c.securityContext };
          expect(context.runAsNonRoot).toBe(true);
          expect(context.runAsUser).not.toBe(0);
        }
      });

      it('takes its env from ConfigMap and Secret keys that exist', () => {
        for (const c of containers(d)) {
          for (const e of c.env ?? []) {
            const cm = e.valueFrom?.configMapKeyRef;
            const sk = e.valueFrom?.secretKeyRef;
            if (cm) {
              const source = ofKind('ConfigMap').find((m) => m.metadata.name === cm.name);
              expect({ name: e.name, found: cm.key in (source?.data ?? {}) }).toEqual({
                name: e.name,
                found: true,
              });
            }
            if (sk) {
              const source = ofKind('Secret').find((m) => m.metadata.name === sk.name);
              expect({ name: e.name, found: sk.key in secretValues(source) }).toEqual({
                name: e.name,
                found: true,
              });
            }
          }
        }
      });

      const env = ENVS.get(app);
      (env ? it : it.skip)('gets every variable its env class requires, and none it does not declare', () => {
        for (const c of containers(d)) {
          const catalogue = c.env?.find((e: Manifest) => e.name === 'CATALOGUE_FILE')?.valueFrom
            ?.configMapKeyRef?.key;
          const appEnv = withExtras(
            env as AppEnv,
            extraVariables(app, catalogue && configMap.data[catalogue]),
          );
          const provided = containerEnv(c);
          expect(required(appEnv).filter((name) => !provided.includes(name))).toEqual([]);
          const explicit = (c.env ?? []).map((e: Manifest) => e.name);
          expect(explicit.filter((name: string) => !appEnv.variables.has(name))).toEqual([]);
        }
      });

      it('has a PodDisruptionBudget that still lets a node drain when it runs more than one replica', () => {
        const hpa = hpaFor(app);
        const replicas = hpa ? hpa.spec.minReplicas : (d.spec.replicas ?? 1);
        const pdb = ofKind('PodDisruptionBudget').find((p) =>
          labelsMatch(p.spec.selector.matchLabels, d.spec.template.metadata.labels),
        );
        if (replicas <= 1) return;
        expect(pdb).toBeDefined();
        const { maxUnavailable, minAvailable } = (pdb as Manifest).spec;
        if (maxUnavailable !== undefined) expect(maxUnavailable).not.toBe(0);
        else expect(Number(minAvailable)).toBeLessThan(replicas);
      });
    });

    it('gives every Service, HPA, PDB and Ingress an existing target', () => {
      const workloads = [...deployments, ...ofKind('StatefulSet')];
      for (const s of ofKind('Service')) {
        const target = workloads.find((d) => labelsMatch(s.spec.selector, d.spec.template.metadata.labels));
        expect({ service: s.metadata.name, target: target?.metadata.name }).toEqual({
          service: s.metadata.name,
          target: expect.any(String),
        });
        for (const port of s.spec.ports)
          expect(portOf(containers(target as Manifest)[0], port.targetPort ?? port.port)).toBeDefined();
      }
      for (const h of ofKind('HorizontalPodAutoscaler')) {
        expect(h.spec.scaleTargetRef.kind).toBe('Deployment');
        expect(deployment(h.spec.scaleTargetRef.name)).toBeDefined();
      }
      for (const p of ofKind('PodDisruptionBudget')) {
        expect(
          deployments.some((d) => labelsMatch(p.spec.selector.matchLabels, d.spec.template.metadata.labels)),
        ).toBe(true);
      }
      for (const ingress of ofKind('Ingress')) {
        for (const rule of ingress.spec.rules) {
          for (const { backend } of rule.http.paths) {
            const service = ofKind('Service').find((s) => s.metadata.name === backend.service.name);
            expect(service).toBeDefined();
            const { name, number } = backend.service.port;
            expect(
              (service as Manifest).spec.ports.some((p: Manifest) => p.name === name || p.port === number),
            ).toBe(true);
          }
        }
      }
    });

    it('names the settings by their content, so that a change rolls every pod that reads them', () => {
      expect(unhashedConfigMaps(manifests)).toEqual([]);
      expect(configMapsRead(manifests)).toContain(configMap.metadata.name);
      const edited = clone(manifests);
      (settingsOf(edited) as Manifest).data.LOG_LEVEL = 'debug';
      expect(unhashedConfigMaps(edited)).toEqual([configMap.metadata.name]);
    });

    it('spreads the replicas of every Deployment over zones and nodes', () => {
      expect(unspreadDeployments(manifests)).toEqual([]);
      const piled = clone(manifests);
      delete podOf(piled.find((m) => m.kind === 'Deployment' && m.metadata.name === 'auth') as Manifest)
        .topologySpreadConstraints;
      const elsewhere = clone(manifests);
      const billing = elsewhere.find(
        (m) => m.kind === 'Deployment' && m.metadata.name === 'billing',
      ) as Manifest;
      podOf(billing).topologySpreadConstraints[1].labelSelector.matchLabels['app.kubernetes.io/name'] =
        'auth';
      expect(unspreadDeployments(piled)).toEqual(['auth']);
      expect(unspreadDeployments(elsewhere)).toEqual(['billing']);
    });

    it('holds liveness off with a startup probe on readiness until the app serves, migrations included', () => {
      expect(startupProblems(manifests)).toEqual([]);
      const broken = clone(manifests);
      const container = (name: string) =>
        containersOf(broken.find((m) => m.kind === 'Deployment' && m.metadata.name === name) as Manifest)[0];
      delete container('billing').startupProbe;
      container('auth').startupProbe.failureThreshold = 6;
      container('storage').startupProbe.httpGet.path = '/healthz';
      container('media').livenessProbe.initialDelaySeconds = 30;
      expect(startupProblems(broken)).toEqual([
        'auth: the startup probe gives up before 600 s',
        'billing: no startup probe',
        'media: liveness guesses the start with a delay',
        'storage: the startup probe does not ask readiness',
      ]);
    });

    it('routes the same public paths to the same Service with an HTTPRoute as with the Ingress', () => {
      expect(httpRoutes(manifests).length).toBeGreaterThan(0);
      expect(httpRoutes(manifests)).toEqual(ingressRoutes(manifests));
      expect(routeTimeoutProblems(manifests)).toEqual([]);
      const broken = clone(manifests);
      const [rule] = (broken.find((m) => m.kind === 'HTTPRoute') as Manifest).spec.rules;
      rule.matches.pop();
      rule.timeouts.request = '300s';
      expect(httpRoutes(broken)).not.toEqual(ingressRoutes(broken));
      expect(routeTimeoutProblems(broken)).toEqual([
        'HTTPRoute api-gateway: a rule times out before the longest request',
      ]);
    });

    it('routes the public API to the gateway', () => {
      const paths = ofKind('Ingress').flatMap((i) => i.spec.rules.flatMap((r: Manifest) => r.http.paths));
      for (const prefix of ['/api/v1/chat/completions', '/api/auth/authorize', '/api/health']) {
        expect(
          paths.some(
            (p: Manifest) =>
              (prefix === p.path || prefix.startsWith(`${p.path}/`)) &&
              p.backend.service.name === 'api-gateway',
          ),
        ).toBe(true);
      }
    });

    it.each(['api-gateway', 'inference'])(
      'autoscales %s on CPU, which needs a CPU request and no fixed replica count',
      (app) => {
        const hpa = hpaFor(app) as Manifest;
        expect(hpa).toBeDefined();
        expect(hpa.spec.metrics).toContainEqual(
          expect.objectContaining({ type: 'Resource', resource: expect.objectContaining({ name: 'cpu' }) }),
        );
        expect(hpa.spec.minReplicas).toBeLessThanOrEqual(hpa.spec.maxReplicas);
        const d = deployment(app) as Manifest;
        expect(d.spec.replicas).toBeUndefined();
        for (const c of containers(d)) expect(c.resources.requests.cpu).toBeDefined();
      },
    );

    it('gives auth and the gateway the same JWT secret, and inference a catalogue that ships in the image', () => {
      const jwtRef = (app: string) =>
        containers(deployment(app) as Manifest)[0].env.find((e: Manifest) => e.name === 'JWT_SECRET')
          ?.valueFrom?.secretKeyRef;
      expect(jwtRef('auth')).toEqual(jwtRef('api-gateway'));
      // The image's working directory holds config/, as the repository root does.
      expect(existsSync(join(ROOT, configMap.data.CATALOGUE_FILE))).toBe(true);
    });

    it('keeps secrets out of the ConfigMap and only placeholders, which the apps refuse, in the Secrets', () => {
      const secretKeys = [
        'JWT_SECRET',
        'ADMIN_TOKEN',
        'DATABASE_URL',
        'DATABASE_MIGRATION_URL',
        'S3_ACCESS_KEY_ID',
        'S3_SECRET_ACCESS_KEY',
      ];
      expect(Object.keys(secretData)).toEqual(expect.arrayContaining(secretKeys));
      expect(Object.keys(configMap.data).filter((key) => secretKeys.includes(key))).toEqual([]);
      for (const s of ofKind('Secret')) {
        for (const [key, value] of Object.entries(secretValues(s)).filter(([k]) => k !== 'NATS_USER')) {
          expect({ key, placeholder: value.includes('PLACEHOLDER') }).toEqual({ key, placeholder: true });
          expect(() => loadEnv(PlaceholderProbe, { VALUE: value })).toThrow(/placeholder/);
        }
      }
    });

    it('lets requests in flight finish in a rollout: grace above the longest request, a preStop sleep, Ingress timeouts', () => {
      expect(rolloutProblems(manifests)).toEqual([]);
      const broken = clone(manifests);
      podOf(broken.find((m) => m.metadata.name === 'inference') as Manifest).terminationGracePeriodSeconds =
        30;
      delete containersOf(broken.find((m) => m.metadata.name === 'auth') as Manifest)[0].lifecycle;
      (broken.find((m) => m.kind === 'Ingress') as Manifest).metadata.annotations[
        'nginx.ingress.kubernetes.io/proxy-read-timeout'
      ] = '300';
      expect(rolloutProblems(broken)).toEqual([
        'auth: no preStop sleep while endpoints are removed',
        'inference: terminationGracePeriodSeconds 30 too short',
        'Ingress api-gateway: proxy-read-timeout below the longest request',
      ]);
    });

    it('runs NATS with the generated users, each app with its own credentials from its own Secret', () => {
      const nats = ofKind('StatefulSet').find((m) => m.metadata.name === 'nats') as Manifest;
      const natsConfig = ofKind('ConfigMap').find((m) => /^nats-config-[a-z0-9]{10}$/.test(m.metadata.name));
      expect(Object.keys(natsConfig?.data ?? {}).sort()).toEqual(['auth.conf', 'nats.conf']);
      expect(podOf(nats).volumes).toContainEqual({
        name: 'config',
        configMap: { name: natsConfig?.metadata.name },
      });
      expect(configMap.data.NATS_URL).toBe('nats://nats:4222');
      expect(natsCredentialProblems(manifests)).toEqual([]);
      const swapped = clone(manifests);
      const inference = containersOf(swapped.find((m) => m.metadata.name === 'inference') as Manifest)[0];
      for (const e of inference.env)
        if (e.valueFrom?.secretKeyRef?.name === 'nats-user-inference')
          e.valueFrom.secretKeyRef.name = 'nats-user-billing';
      expect(natsCredentialProblems(swapped)).toEqual([
        'inference: connects as billing',
        'inference: its password is not the one the NATS server is given',
        'inference: shares a Secret',
      ]);
    });

    const expectedReach = {
      'from outside': ['api-gateway'],
      nats: ['api-gateway', 'auth', 'billing', 'inference', 'media', 'storage'],
      'services health': ['api-gateway'],
      postgres: ['auth', 'billing', 'inference', 'media', 'migrate', 'storage'],
      'internet over https': ['api-gateway', 'inference', 'media', 'storage'],
    };

    it('denies by default and lets through only what each app needs', () => {
      expect(reachability(manifests)).toEqual(expectedReach);
    });

    it('fails a NetworkPolicy set that lets more through (broken copies)', () => {
      const open = withoutKind(manifests, 'NetworkPolicy', 'default-deny').filter(
        (m) => !(m.kind === 'NetworkPolicy' && ['nats-ingress', 'services-health'].includes(m.metadata.name)),
      );
      expect(reachability(open)).not.toEqual(expectedReach);
      const billingOnline = clone(manifests);
      (
        billingOnline.find((m) => m.metadata.name === 'providers') as Manifest
      ).spec.podSelector.matchExpressions[0].values.push('billing');
      expect(reachability(billingOnline)['internet over https']).toContain('billing');
    });

    it('migrates in a Job as the schemas owner, and runs the services as a role that only reads and writes rows', () => {
      const job = ofKind('Job').find((m) => m.metadata.name === 'migrate') as Manifest;
      const steps = [...(podOf(job).initContainers ?? []), ...podOf(job).containers];
      const services = NATS_APPS.filter((app) => app !== 'mock-upstream');
      expect(steps.map((c: Manifest) => c.name).sort()).toEqual([...services].sort());
      for (const step of steps) {
        expect(step.command).toEqual(['node', 'main.js', '--migrate']);
        expect(String(step.image).split(':')[0]).toBe(`model-gateway/${step.name}`);
        expect(step.env.find((e: Manifest) => e.name === 'DATABASE_URL').valueFrom.secretKeyRef.key).toBe(
          'DATABASE_MIGRATION_URL',
        );
        const appEnv = ENVS.get(step.name);
        if (appEnv) expect(required(appEnv).filter((name) => !containerEnv(step).includes(name))).toEqual([]);
      }
      for (const app of services) {
        const [c] = containers(deployment(app) as Manifest);
        expect({ app, migrates: envValue(manifests, c, 'DB_MIGRATE_ON_START') }).toEqual({
          app,
          migrates: 'false',
        });
        expect(Number(envValue(manifests, c, 'DB_POOL_MAX'))).toBeGreaterThan(0);
        expect(new URL(envValue(manifests, c, 'DATABASE_URL') as string).username).not.toBe(
          new URL(secretData.DATABASE_MIGRATION_URL).username,
        );
      }
    });
  });

  describe('the overlays differ where they must', () => {
    const dev = renderKustomization(join(K8S, 'overlays/dev'));
    const prod = renderKustomization(join(K8S, 'overlays/prod'));
    const config = (manifests: Manifest[]) => settingsOf(manifests)?.data ?? {};

    it('runs the demo catalogue against the mock upstream in dev, and neither in prod', () => {
      expect(config(dev).CATALOGUE_FILE).toBe('config/catalogue.demo.json');
      const url = new URL(config(dev).MOCK_UPSTREAM_URL);
      const service = dev.find((m) => m.kind === 'Service' && m.metadata.name === url.hostname);
      expect(service?.spec.ports.map((p: Manifest) => String(p.port))).toContain(url.port || '80');
      expect(config(prod).CATALOGUE_FILE).not.toMatch(/demo/);
      expect(prod.filter((m) => m.metadata.name === 'mock-upstream')).toEqual([]);
    });

    it('serves prod over TLS without the operator API, the docs or the metrics on the Ingress', () => {
      const [ingress] = prod.filter((m) => m.kind === 'Ingress');
      expect(ingress.spec.tls?.[0]?.secretName).toEqual(expect.any(String));
      expect(privatePathsRouted(prod)).toEqual([]);
      expect(privatePathsRouted(dev)).toEqual(['/api']);
    });
  });

  it('documents how to build, apply and scale, and what the cluster must provide', () => {
    const readme = readFileSync(join(K8S, 'README.md'), 'utf8');
    for (const needle of [
      'docker build',
      'kubectl apply -k k8s/overlays/prod',
      'kubectl apply -k k8s/overlays/dev',
      'JetStream',
      'Postgres',
      'queue group',
      'DATABASE_MIGRATION_URL',
      'NetworkPolic',
    ])
      expect(readme).toContain(needle);
  });
});
