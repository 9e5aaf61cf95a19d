// One webpack setup for every app: Nest needs decorator metadata, which only the tsc compiler emits
// here; pg and the NATS transport are loaded dynamically, so they are declared as runtime dependencies
// (pg only for an app that holds a database: not the gateway).
const { NxAppWebpackPlugin } = require('@nx/webpack/app-plugin');
const { join } = require('path');

const DATABASE_PACKAGES = ['typeorm', '@nestjs/typeorm', 'pg'];

/** Fails the build of an app without a database whose bundle would still load a database package. */
class NoDatabaseInBundle {
  apply(compiler) {
    const { ExternalModule, WebpackError } = compiler.webpack;
    compiler.hooks.thisCompilation.tap('NoDatabaseInBundle', (compilation) => {
      compilation.hooks.finishModules.tap('NoDatabaseInBundle', (modules) => {
        for (const module of modules) {
          if (!(module instanceof ExternalModule)) continue;
          const request = [module.request].flat()[0];
          if (DATABASE_PACKAGES.some((name) => request === name || request.startsWith(`${name}/`)))
            compilation.errors.push(
              new WebpackError(`${request} is bundled into an app that holds no database`),
            );
        }
      });
    });
  }
}

module.exports = (appDir, appName, { database = true } = {}) => ({
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
      runtimeDependencies: ['@nats-io/transport-node', ...(database ? ['pg'] : [])],
      sourceMap: true,
    }),
    ...(database ? [] : [new NoDatabaseInBundle()]),
  ],
});
