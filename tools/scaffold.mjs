// Writes the per-project boilerplate (project.json, tsconfigs, jest config) for a lib or an app.
// Usage: node tools/scaffold.mjs lib platform type:platform | node tools/scaffold.mjs app auth type:service
import { mkdirSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';

const [kind, name, tag] = process.argv.slice(2);
const root = kind === 'lib' ? `libs/${name}` : `apps/${name}`;
mkdirSync(join(root, 'src'), { recursive: true });
const write = (file, content) => {
  const p = join(root, file);
  if (!existsSync(p))
    writeFileSync(p, typeof content === 'string' ? content : JSON.stringify(content, null, 2) + '\n');
};
write('project.json', {
  name,
  $schema: '../../node_modules/nx/schemas/project-schema.json',
  sourceRoot: `${root}/src`,
  projectType: kind === 'lib' ? 'library' : 'application',
  tags: [tag],
});
write('tsconfig.json', {
  extends: '../../tsconfig.base.json',
  files: [],
  include: [],
  references: [
    { path: kind === 'lib' ? './tsconfig.lib.json' : './tsconfig.app.json' },
    { path: './tsconfig.spec.json' },
  ],
});
write(kind === 'lib' ? 'tsconfig.lib.json' : 'tsconfig.app.json', {
  extends: './tsconfig.json',
  compilerOptions: { outDir: `../../dist/out-tsc`, rootDir: '../..', types: ['node'] },
  include: ['src/**/*.ts'],
  exclude: ['src/**/*.spec.ts', 'src/**/*.int-spec.ts', 'test/**/*', 'jest.config.cjs'],
});
write('tsconfig.spec.json', {
  extends: './tsconfig.json',
  compilerOptions: { outDir: '../../dist/out-tsc', rootDir: '../..', types: ['jest', 'node'] },
  include: ['src/**/*.ts', 'test/**/*.ts'],
});
write(
  'jest.config.cjs',
  `module.exports = { ...require('../../jest.preset.cjs'), displayName: '${name}', rootDir: __dirname };\n`,
);
if (kind === 'app') {
  write(
    'webpack.config.cjs',
    `module.exports = require('../../tools/webpack/app-webpack.cjs')(__dirname, '${name}');\n`,
  );
}
