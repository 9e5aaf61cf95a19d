// The fault suite (`npm run test:faults`, docs/reliability.md): one distributed stack, one row per
// fault, a table at the end. Its own config so that the e2e run of `npm test` does not pick it up.
module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'faults',
  rootDir: __dirname,
  testMatch: ['**/*.faults-spec.ts'],
  testTimeout: 600_000,
};
