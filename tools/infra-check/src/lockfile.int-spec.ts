import { execFile, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// `npm ci` on a clean machine, as an image build or CI runs it: the checkout's manifest and lockfile
// alone in an empty directory, checked without installing anything (`--dry-run`: no node_modules, no
// audit or funding requests). With a complete lockfile npm reads nothing from the registry; it does
// where the lockfile lacks what it needs, and then an unreachable registry skips the checks instead
// of failing them.

const ROOT = join(__dirname, '../../..');
const ARGS = ['ci', '--dry-run', '--ignore-scripts', '--no-audit', '--no-fund'];
/** npm's errors for a registry it cannot reach, as opposed to a lockfile it refuses. */
const UNREACHABLE = /\b(ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH)\b/;

type Files = { manifest: string; lockfile: string };
type Outcome = { code: number; output: string };

/** A clean directory holding only the manifest, the lockfile and the checkout's .npmrc. */
function cleanDirectory({ manifest, lockfile }: Files): string {
  const dir = mkdtempSync(join(tmpdir(), 'npm-ci-'));
  copyFileSync(join(ROOT, '.npmrc'), join(dir, '.npmrc'));
  writeFileSync(join(dir, 'package.json'), manifest);
  writeFileSync(join(dir, 'package-lock.json'), lockfile);
  return dir;
}

/** `npm ci --dry-run` on the files, waited for (run once while the specs are collected, to decide on skipping). */
function npmCiDryRunNow(files: Files): Outcome {
  const dir = cleanDirectory(files);
  try {
    const run = spawnSync('npm', ARGS, { cwd: dir, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    return { code: run.status ?? 1, output: `${run.stdout}${run.stderr}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `npm ci --dry-run` on the files; resolves to npm's output and exit code. */
function npmCiDryRun(files: Files): Promise<Outcome> {
  const dir = cleanDirectory(files);
  return new Promise((resolve) => {
    execFile('npm', ARGS, { cwd: dir, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      rmSync(dir, { recursive: true, force: true });
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, output: stdout + stderr });
    });
  });
}

describe('package-lock.json', () => {
  const committed: Files = {
    manifest: readFileSync(join(ROOT, 'package.json'), 'utf8'),
    lockfile: readFileSync(join(ROOT, 'package-lock.json'), 'utf8'),
  };
  const outcome = npmCiDryRunNow(committed);
  const unreachable = outcome.code !== 0 ? UNREACHABLE.exec(outcome.output) : null;
  if (unreachable)
    console.warn(
      `package-lock.json checks SKIPPED: npm ci --dry-run could not reach the npm registry (${unreachable[1]}), ` +
        'so whether npm ci accepts the lockfile is unknown',
    );
  const whenReachable = unreachable ? it.skip : it;

  whenReachable('is accepted by npm ci from a clean directory', () => {
    expect({ code: outcome.code, missing: outcome.output.match(/Missing: .*/g) ?? [] }).toEqual({
      code: 0,
      missing: [],
    });
  });

  whenReachable(
    'is refused when it lacks another platform’s optional package (broken fixture)',
    async () => {
      const lock = JSON.parse(committed.lockfile) as { packages: Record<string, unknown> };
      delete lock.packages['node_modules/sass-embedded-darwin-arm64'];
      const { code, output } = await npmCiDryRun({ ...committed, lockfile: JSON.stringify(lock, null, 2) });
      expect(code).not.toBe(0);
      expect(output).toContain('Missing: sass-embedded-darwin-arm64');
    },
    120_000,
  );

  whenReachable(
    'is refused when package.json asks for a version it does not lock (broken fixture)',
    async () => {
      const manifest = JSON.parse(committed.manifest) as { dependencies: Record<string, string> };
      manifest.dependencies['decimal.js'] = '10.5.0';
      const { code, output } = await npmCiDryRun({
        ...committed,
        manifest: JSON.stringify(manifest, null, 2),
      });
      expect(code).not.toBe(0);
      expect(output).toMatch(
        /Invalid: lock file's decimal\.js@10\.6\.0 does not satisfy decimal\.js@10\.5\.0/,
      );
    },
    120_000,
  );
});
