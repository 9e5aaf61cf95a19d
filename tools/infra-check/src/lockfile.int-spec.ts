import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// `npm ci` on a clean machine, as an image build or CI runs it: the checkout's manifest and lockfile
// alone in an empty directory, resolved against the registry without installing anything.

const ROOT = join(__dirname, '../../..');

/** Runs `npm ci --dry-run` on a copy of the manifest and the given lockfile; resolves to npm's output and exit code. */
function npmCiDryRun(lockfile: string): Promise<{ code: number; output: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'npm-ci-'));
  for (const file of ['package.json', '.npmrc']) copyFileSync(join(ROOT, file), join(dir, file));
  writeFileSync(join(dir, 'package-lock.json'), lockfile);
  return new Promise((resolve) => {
    execFile(
      'npm',
      ['ci', '--dry-run', '--ignore-scripts', '--no-audit', '--no-fund'],
      { cwd: dir, maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) => {
        rmSync(dir, { recursive: true, force: true });
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, output: stdout + stderr });
      },
    );
  });
}

describe('package-lock.json', () => {
  const lockfile = readFileSync(join(ROOT, 'package-lock.json'), 'utf8');

  it('is accepted by npm ci from a clean directory', async () => {
    const { code, output } = await npmCiDryRun(lockfile);
    expect({ code, missing: output.match(/Missing: .*/g) ?? [] }).toEqual({ code: 0, missing: [] });
  }, 120_000);

  it('is refused when it lacks another platform’s optional package (broken fixture)', async () => {
    const lock = JSON.parse(lockfile) as { packages: Record<string, unknown> };
    delete lock.packages['node_modules/sass-embedded-darwin-arm64'];
    const { code, output } = await npmCiDryRun(JSON.stringify(lock, null, 2));
    expect(code).not.toBe(0);
    expect(output).toContain('Missing: sass-embedded-darwin-arm64');
  }, 120_000);
});
