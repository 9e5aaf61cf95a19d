import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// The gateway holds no database (DESIGN.md §3): neither its bundle nor what its image installs
// may carry a database package. The services' builds are the contrast that shows the check reads
// what it should.
const DIST = join(__dirname, '../../../dist/apps');
const DATABASE_PACKAGES = ['typeorm', '@nestjs/typeorm', 'pg'];

const requiredPackages = (app: string): string[] =>
  [...readFileSync(join(DIST, app, 'main.js'), 'utf8').matchAll(/require\("([^"]+)"\)/g)].map(
    ([, request]) => request,
  );
const installedPackages = (app: string): string[] =>
  Object.keys(
    (JSON.parse(readFileSync(join(DIST, app, 'package.json'), 'utf8')) as { dependencies?: object })
      .dependencies ?? {},
  );
const database = (names: string[]): string[] =>
  names.filter((name) => DATABASE_PACKAGES.some((pkg) => name === pkg || name.startsWith(`${pkg}/`)));

describe('the gateway build', () => {
  it('neither loads nor installs a database package', () => {
    expect(database(requiredPackages('api-gateway'))).toEqual([]);
    expect(database(installedPackages('api-gateway'))).toEqual([]);
  });

  it('differs there from a service, which needs them', () => {
    expect(database(requiredPackages('auth'))).toContain('typeorm');
    expect(database(installedPackages('auth'))).toEqual(expect.arrayContaining(['typeorm', 'pg']));
  });
});
