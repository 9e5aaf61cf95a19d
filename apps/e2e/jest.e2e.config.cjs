// Named so that the Nx jest plugin does not infer a `test` target: these specs run the built apps,
// so they run as the `e2e` target after every app's build.
module.exports = {
  ...require('../../jest.preset.cjs'),
  displayName: 'e2e',
  rootDir: __dirname,
  testTimeout: 60_000,
};
