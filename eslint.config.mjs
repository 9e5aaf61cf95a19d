import nx from '@nx/eslint-plugin';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

/** Test code: co-located specs, `test/` folders, the e2e app and the infra checks. */
const testFiles = [
  '**/*.spec.ts',
  '**/*.int-spec.ts',
  '**/*.e2e-spec.ts',
  '**/test/**/*.ts',
  'apps/e2e/**/*.ts',
  'tools/infra-check/**/*.ts',
];

const databaseDrivers = ['typeorm', '@nestjs/typeorm', 'pg'];

/** Who may import whom, by Nx tag (STYLE.md habit 7). Test files widen this below. */
const depConstraints = [
  {
    sourceTag: 'type:pure',
    onlyDependOnLibsWithTags: ['type:pure'],
    bannedExternalImports: ['@nestjs/*', '@nats-io/*', ...databaseDrivers],
  },
  {
    sourceTag: 'type:contract',
    onlyDependOnLibsWithTags: ['type:contract', 'type:pure'],
    bannedExternalImports: ['@nestjs/*', '@nats-io/*', ...databaseDrivers],
  },
  {
    // HTTP request/response classes: swagger decorators, but no transport and no database.
    sourceTag: 'type:dto',
    onlyDependOnLibsWithTags: ['type:contract', 'type:pure'],
    bannedExternalImports: ['@nestjs/microservices', '@nats-io/*', ...databaseDrivers],
  },
  {
    sourceTag: 'type:platform',
    onlyDependOnLibsWithTags: ['type:dto', 'type:contract', 'type:pure', 'type:testing'],
  },
  { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:contract', 'type:pure'] },
  {
    // Service machinery more than one service uses (the model catalogue, the paid-generation pipeline).
    sourceTag: 'type:domain',
    onlyDependOnLibsWithTags: [
      'type:domain',
      'type:platform',
      'type:dto',
      'type:contract',
      'type:pure',
      'type:testing',
    ],
  },
  {
    sourceTag: 'type:service',
    onlyDependOnLibsWithTags: [
      'type:domain',
      'type:platform',
      'type:dto',
      'type:contract',
      'type:pure',
      'type:testing',
    ],
  },
  {
    // The gateway holds no database (DESIGN.md §3): it reaches data only through the services.
    sourceTag: 'type:gateway',
    onlyDependOnLibsWithTags: ['type:platform', 'type:dto', 'type:contract', 'type:pure', 'type:testing'],
    bannedExternalImports: databaseDrivers,
  },
  {
    sourceTag: 'type:composition',
    onlyDependOnLibsWithTags: [
      'type:gateway',
      'type:service',
      'type:domain',
      'type:platform',
      'type:dto',
      'type:contract',
      'type:pure',
    ],
  },
  {
    sourceTag: 'type:e2e',
    onlyDependOnLibsWithTags: ['type:testing', 'type:dto', 'type:contract', 'type:pure'],
  },
];

/**
 * Integration tests of an app run the real services it talks to, and may read their tables; those of
 * the embedded composition start a real database and broker like every other app's.
 */
const testDepConstraints = depConstraints.map((constraint) =>
  constraint.sourceTag === 'type:service' || constraint.sourceTag === 'type:gateway'
    ? {
        sourceTag: constraint.sourceTag,
        onlyDependOnLibsWithTags: ['type:service', ...constraint.onlyDependOnLibsWithTags],
      }
    : constraint.sourceTag === 'type:composition'
      ? {
          sourceTag: constraint.sourceTag,
          onlyDependOnLibsWithTags: [...constraint.onlyDependOnLibsWithTags, 'type:testing'],
        }
      : constraint,
);

const moduleBoundaries = (constraints, allow = []) => [
  'error',
  { enforceBuildableLibDependency: true, allow, depConstraints: constraints },
];

const noForwardRef = [
  {
    selector: "ImportSpecifier[imported.name='forwardRef']",
    message: 'No forwardRef: a dependency cycle is a design to change (STYLE.md habit 7).',
  },
  {
    selector: "CallExpression[callee.name='forwardRef'], MemberExpression[property.name='forwardRef']",
    message: 'No forwardRef: a dependency cycle is a design to change (STYLE.md habit 7).',
  },
];

const noFocusedTests = [
  {
    selector: "MemberExpression[object.name=/^(describe|it|test)$/][property.name='only']",
    message: 'A focused test silently skips the rest of the file.',
  },
  {
    selector: 'CallExpression[callee.name=/^(fdescribe|fit)$/]',
    message: 'A focused test silently skips the rest of the file.',
  },
];

export default [
  ...nx.configs['flat/base'],
  ...nx.configs['flat/typescript'],
  ...tseslint.configs.recommendedTypeCheckedOnly.map((config) => ({ ...config, files: ['**/*.ts'] })),
  prettier,
  { ignores: ['**/dist', '**/node_modules', '**/.nx', '**/.data', '**/coverage', '**/*.cjs', '**/*.mjs'] },
  {
    files: ['**/*.ts'],
    languageOptions: {
      // Every .ts file belongs to its project's tsconfig.app/lib.json or tsconfig.spec.json, which the
      // project's solution tsconfig.json references; no file is linted without types.
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@nx/enforce-module-boundaries': moduleBoundaries(depConstraints),
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      // With emitDecoratorMetadata on, typescript-eslint leaves every import of a decorated file
      // alone: Nest DI and class-validator read those classes at runtime through the metadata.
      // Inline `type` markers keep one import line per module, so the fix stays a small diff.
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      // An `async` method implementing a Promise-returning interface is the clearest way to say so,
      // and it turns a synchronous throw into a rejection.
      '@typescript-eslint/require-await': 'off',
      // Passing on the error an Observable or a callback failed with is forwarding, not inventing one.
      '@typescript-eslint/prefer-promise-reject-errors': [
        'error',
        { allowThrowingAny: true, allowThrowingUnknown: true },
      ],
      'no-restricted-syntax': ['error', ...noForwardRef],
    },
  },
  {
    // libs/testing starts databases and brokers: it belongs to tests only.
    files: ['**/*.ts'],
    ignores: [...testFiles, 'libs/testing/**', 'libs/platform/src/testing/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@gw/testing', '@gw/testing/*', '@gw/platform/testing', '@nestjs/testing'],
              message:
                'Test helpers (libs/testing, @gw/platform/testing, @nestjs/testing) are for specs and test/ folders.',
            },
          ],
        },
      ],
    },
  },
  {
    // The repository is the only file that touches TypeORM (STYLE.md): entities, migrations and the
    // database wiring are the rest of that layer.
    files: ['apps/**/*.ts'],
    ignores: [...testFiles, 'apps/**/*.repository.ts', 'apps/**/*.entity.ts', 'apps/**/database/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: ['typeorm', '@nestjs/typeorm'].map((name) => ({
            name,
            message: 'Only *.repository.ts, *.entity.ts and database/ import TypeORM.',
          })),
          patterns: [
            {
              group: ['typeorm/*'],
              message: 'Only *.repository.ts, *.entity.ts and database/ import TypeORM.',
            },
          ],
        },
      ],
    },
  },
  {
    // The gateway holds no database: neither TypeORM nor the platform's database entry point.
    files: ['apps/api-gateway/**/*.ts'],
    ignores: testFiles,
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [...databaseDrivers, '@gw/platform/database'].map((name) => ({
            name,
            message: 'The gateway holds no database; it asks the services over NATS.',
          })),
          patterns: [{ group: ['typeorm/*', 'pg/*'], message: 'The gateway holds no database.' }],
        },
      ],
    },
  },
  {
    files: testFiles,
    rules: {
      // Specs read untyped JSON answers of the API under test; typing each one would only restate the
      // assertions.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      'no-restricted-syntax': ['error', ...noForwardRef, ...noFocusedTests],
    },
  },
  {
    // Env schemas spell out `: number` / `: string`: tsc emits `Object` as decorator metadata for an
    // inferred type, and class-transformer then cannot convert the variable's string.
    files: ['**/*.env.ts', 'libs/platform/src/env/base-env.ts', 'libs/platform/src/env/load-env.spec.ts'],
    rules: { '@typescript-eslint/no-inferrable-types': 'off' },
  },
  {
    // Integration specs of an app run the real services it talks to.
    files: ['apps/*/test/**/*.ts', 'apps/**/*.int-spec.ts'],
    rules: { '@nx/enforce-module-boundaries': moduleBoundaries(testDepConstraints, ['@gw/app-*']) },
  },
  {
    // The embedded entry point is the one place that composes the apps' root modules (DESIGN.md §3).
    // Its integration specs fall under the rule above.
    files: ['apps/embedded/**/*.ts'],
    ignores: ['apps/**/*.int-spec.ts'],
    rules: { '@nx/enforce-module-boundaries': moduleBoundaries(depConstraints, ['@gw/app-*']) },
  },
];
