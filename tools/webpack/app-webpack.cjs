// One webpack setup for every app: Nest needs decorator metadata, which only the tsc compiler emits
// here; pg and the NATS transport are loaded dynamically, so they are declared as runtime dependencies.
const { NxAppWebpackPlugin } = require('@nx/webpack/app-plugin');
const { join } = require('path');

module.exports = (appDir, appName) => ({
  output: { path: join(appDir, '../../dist/apps', appName), clean: true },
  devtool: 'source-map',
  plugins: [
    new NxAppWebpackPlugin({
      target: 'node',
      compiler: 'tsc',
      main: './src/main.ts',
      tsConfig: './tsconfig.app.json',
      assets: [],
      optimization: false,
      outputHashing: 'none',
      generatePackageJson: true,
      runtimeDependencies: ['@nats-io/transport-node', 'pg'],
      sourceMap: true,
    }),
  ],
});
