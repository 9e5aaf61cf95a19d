import nx from '@nx/eslint-plugin';
import prettier from 'eslint-config-prettier';

export default [
  ...nx.configs['flat/base'],
  ...nx.configs['flat/typescript'],
  prettier,
  { ignores: ['**/dist', '**/node_modules', '**/.nx', '**/.data', '**/coverage', '**/*.cjs', '**/*.mjs'] },
  {
    files: ['**/*.ts'],
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: true,
          allow: [],
          depConstraints: [
            {
              sourceTag: 'type:pure',
              onlyDependOnLibsWithTags: ['type:pure'],
              bannedExternalImports: ['@nestjs/*', 'typeorm', '@nats-io/*', 'pg'],
            },
            { sourceTag: 'type:contract', onlyDependOnLibsWithTags: ['type:contract', 'type:pure'] },
            {
              sourceTag: 'type:platform',
              onlyDependOnLibsWithTags: ['type:contract', 'type:pure', 'type:testing'],
            },
            { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:contract', 'type:pure'] },
            {
              // Service machinery more than one service uses (the model catalogue, the paid-generation pipeline).
              sourceTag: 'type:domain',
              onlyDependOnLibsWithTags: [
                'type:domain',
                'type:platform',
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
                'type:contract',
                'type:pure',
                'type:testing',
              ],
            },
            {
              sourceTag: 'type:composition',
              onlyDependOnLibsWithTags: [
                'type:service',
                'type:domain',
                'type:platform',
                'type:contract',
                'type:pure',
              ],
            },
            {
              sourceTag: 'type:e2e',
              onlyDependOnLibsWithTags: ['type:testing', 'type:contract', 'type:pure'],
            },
          ],
        },
      ],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Specs read untyped JSON answers of the API under test; typing each one would only restate the assertions.
    files: ['**/*.spec.ts', '**/*.int-spec.ts', '**/*.e2e-spec.ts', 'apps/*/test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  {
    // Env schemas spell out `: number` / `: string`: tsc emits `Object` as decorator metadata for an
    // inferred type, and class-transformer then cannot convert the variable's string.
    files: ['**/*.env.ts', 'libs/platform/src/env/base-env.ts', 'libs/platform/src/env/load-env.spec.ts'],
    rules: { '@typescript-eslint/no-inferrable-types': 'off' },
  },
  {
    // Integration specs of the gateway run the real services they talk to.
    files: ['apps/*/test/**/*.ts', 'apps/**/*.int-spec.ts'],
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        {
          allow: ['@gw/app-*'],
          depConstraints: [
            {
              sourceTag: 'type:service',
              onlyDependOnLibsWithTags: [
                'type:service',
                'type:domain',
                'type:platform',
                'type:contract',
                'type:pure',
                'type:testing',
              ],
            },
          ],
        },
      ],
    },
  },
  {
    // The embedded entry point is the one place that composes the services' root modules (DESIGN.md §3).
    files: ['apps/embedded/**/*.ts'],
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        {
          allow: ['@gw/app-*'],
          depConstraints: [
            {
              sourceTag: 'type:composition',
              onlyDependOnLibsWithTags: [
                'type:service',
                'type:domain',
                'type:platform',
                'type:contract',
                'type:pure',
              ],
            },
          ],
        },
      ],
    },
  },
];
