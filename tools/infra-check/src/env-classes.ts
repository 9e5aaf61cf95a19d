import { getMetadataStorage, ValidationTypes } from 'class-validator';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** The variables one app declares, with those of the classes and mixins it extends. */
export interface AppEnv {
  files: string[];
  /** Variable name → whether the app fails to start without it. */
  variables: Map<string, boolean>;
}

type EnvClass = new () => object;

const ENV_NAME = /^[A-Z][A-Z0-9_]*$/;

/**
 * Reads an env class the way the app itself does, through its class-validator metadata (own and
 * inherited, mixins included): a variable is required when it has no default and no `@IsOptional()`.
 * Only upper-case names count: env variables are written that way, helper members are not.
 */
export function envVariables(env: EnvClass): Map<string, boolean> {
  const metadata = getMetadataStorage().getTargetValidationMetadatas(env, '', true, false);
  const defaults = new env() as Record<string, unknown>;
  const variables = new Map<string, boolean>();
  for (const { propertyName } of metadata) {
    if (!ENV_NAME.test(propertyName) || variables.has(propertyName)) continue;
    const optional = metadata.some(
      (rule) => rule.propertyName === propertyName && rule.type === ValidationTypes.CONDITIONAL_VALIDATION,
    );
    variables.set(propertyName, defaults[propertyName] === undefined && !optional);
  }
  return variables;
}

function isEnvClass(value: unknown): value is EnvClass {
  return (
    typeof value === 'function' &&
    getMetadataStorage().getTargetValidationMetadatas(value, '', true, false).length > 0
  );
}

/**
 * The env classes of an app (`apps/<app>/src/*.env.ts`), loaded as code; undefined when the app has
 * no env file yet. A mixin function exported beside a class carries no metadata of its own and is
 * read through the classes built from it.
 */
export function readAppEnv(root: string, app: string): AppEnv | undefined {
  const srcDir = join(root, 'apps', app, 'src');
  if (!existsSync(srcDir)) return undefined;
  const files = readdirSync(srcDir)
    .filter((file) => file.endsWith('.env.ts'))
    .map((file) => join(srcDir, file));
  if (files.length === 0) return undefined;

  const variables = new Map<string, boolean>();
  for (const file of files) {
    const exported = Object.values(require(file) as Record<string, unknown>).filter(isEnvClass);
    for (const env of exported) {
      for (const [name, required] of envVariables(env)) {
        variables.set(name, (variables.get(name) ?? false) || required);
      }
    }
  }
  return { files, variables };
}
