// One webpack setup for every app: Nest needs decorator metadata, which only the tsc compiler emits
// here; pg and the NATS transport are loaded dynamically, so they are declared as runtime dependencies
// (pg only for an app that holds a database: not the gateway).
const { NxAppWebpackPlugin } = require('@nx/webpack/app-plugin');
const { join } = require('path');

const DATABASE_PACKAGES = ['typeorm', '@nestjs/typeorm', 'pg'];

/**
 * An app without a database carries no database package: its build fails if the bundle would load
 * one, and the generated package.json (the app's own manifest of runtime packages; the images copy
 * one shared install instead, decision 154) leaves them out. Nx lists every
 * package any file of a depended-on lib imports, database glue and test helpers included.
 */
class NoDatabaseInBundle {
  apply(compiler) {
    const { ExternalModule, WebpackError, Compilation, sources } = compiler.webpack;
    compiler.hooks.thisCompilation.tap('NoDatabaseInBundle', (compilation) => {
      compilation.hooks.processAssets.tap(
        { name: 'NoDatabaseInBundle', stage: Compilation.PROCESS_ASSETS_STAGE_REPORT },
        () => {
          const asset = compilation.getAsset('package.json');
          if (!asset) return;
          const manifest = JSON.parse(asset.source.source().toString());
          for (const name of DATABASE_PACKAGES) delete manifest.dependencies?.[name];
          compilation.updateAsset('package.json', new sources.RawSource(JSON.stringify(manifest, null, 2)));
        },
      );
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

/**
 * `entries`: more bundles beside main.js, each `{ entryName, entryPath }` (relative to the app), for
 * code that main.js loads only in some processes (the embedded launcher, decision 198).
 */
module.exports = (appDir, appName, { database = true, entries = [] } = {}) => ({
  output: { path: join(appDir, '../../dist/apps', appName), clean: true },
  devtool: 'source-map',
  plugins: [
    new NxAppWebpackPlugin({
      target: 'node',
      compiler: 'tsc',
      main: './src/main.ts',
      additionalEntryPoints: entries,
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
