import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** One environment class as written in the source, before inheritance is applied. */
export interface EnvClassSource {
  name: string;
  base?: string;
  /** Variable name → whether the app fails to start without it. */
  variables: Map<string, boolean>;
}

const CLASS_HEAD = /\bclass\s+(\w+)(?:\s+extends\s+(\w+))?[^{]*\{/g;
const BLOCK_COMMENT = /\/\*[\s\S]*?\*\//g;
// Not after a colon or quote, so URLs in string defaults survive.
const LINE_COMMENT = /(^|[^:'"`])\/\/.*$/gm;
const LEADING_DECORATORS = /^(?:@\w+(?:\([^()]*(?:\([^()]*\)[^()]*)*\))?\s*)+/;
const PROPERTY = /^(?:(?:public|readonly|declare)\s+)*([A-Z][A-Z0-9_]*)\s*([!?])?\s*(:[^=]*)?(=)?/;

/**
 * Reads the env classes of a source file. A property without an initialiser and without `?` is
 * required (`NAME!: string;`); `NAME = value;` has a default; `NAME?: string;` is optional. Only
 * upper-case names count: env variables are written that way, helper members are not.
 */
export function parseEnvClasses(source: string): EnvClassSource[] {
  const code = source.replace(BLOCK_COMMENT, '').replace(LINE_COMMENT, '$1');
  const classes: EnvClassSource[] = [];
  for (const head of code.matchAll(CLASS_HEAD)) {
    const variables = new Map<string, boolean>();
    let depth = 1;
    let member = '';
    // Members end with `;` or, for methods and object defaults, with the `}` closing their body
    // (not one inside a decorator's arguments); nested text is left out, so a member reads as one
    // flat declaration.
    for (let i = (head.index ?? 0) + head[0].length; i < code.length && depth > 0; i++) {
      const ch = code[i];
      if (ch === '{') depth++;
      else if (ch === '}') depth--;
      if (depth === 0 || (depth === 1 && (ch === ';' || (ch === '}' && parensClosed(member))))) {
        readMember(member, variables);
        member = '';
      } else if (depth === 1 || (depth === 2 && ch === '{')) {
        member += ch;
      }
    }
    classes.push({ name: head[1], base: head[2], variables });
  }
  return classes;
}

function parensClosed(text: string): boolean {
  return text.split('(').length === text.split(')').length;
}

function readMember(text: string, into: Map<string, boolean>): void {
  const declaration = text.replace(/\s+/g, ' ').trim().replace(LEADING_DECORATORS, '');
  const match = PROPERTY.exec(declaration);
  if (!match) return;
  const [, name, marker, type, initialiser] = match;
  // A bare word is not a declaration.
  if (!marker && !type && !initialiser) return;
  into.set(name, !initialiser && marker !== '?');
}

/** The variables one app declares, with those of the classes it extends. */
export interface AppEnv {
  files: string[];
  variables: Map<string, boolean>;
}

/**
 * The env classes of an app (`apps/<app>/src/*.env.ts`), with inherited variables; undefined when
 * the app has no env file yet. Base classes are looked up in the app's env files, then in libs.
 */
export function readAppEnv(root: string, app: string): AppEnv | undefined {
  const srcDir = join(root, 'apps', app, 'src');
  if (!existsSync(srcDir)) return undefined;
  const files = readdirSync(srcDir)
    .filter((file) => file.endsWith('.env.ts'))
    .map((file) => join(srcDir, file));
  if (files.length === 0) return undefined;

  const own = files.flatMap((file) => parseEnvClasses(readFileSync(file, 'utf8')));
  const variables = new Map<string, boolean>();
  for (const cls of own) {
    for (const [name, required] of resolve(cls, own, root, new Set()).entries()) {
      variables.set(name, (variables.get(name) ?? false) || required);
    }
  }
  return { files, variables };
}

function resolve(
  cls: EnvClassSource,
  local: EnvClassSource[],
  root: string,
  seen: Set<string>,
): Map<string, boolean> {
  if (seen.has(cls.name)) throw new Error(`env class ${cls.name} extends itself`);
  seen.add(cls.name);
  const inherited = new Map<string, boolean>();
  if (cls.base) {
    const base = local.find((candidate) => candidate.name === cls.base) ?? findLibClass(root, cls.base);
    if (!base)
      throw new Error(
        `env class ${cls.name} extends ${cls.base}, which is not declared in the app or in libs/*/src`,
      );
    for (const [name, required] of resolve(base, local, root, seen)) inherited.set(name, required);
  }
  // A subclass may give an inherited variable a default (or take it away).
  for (const [name, required] of cls.variables) inherited.set(name, required);
  return inherited;
}

const libClassCache = new Map<string, EnvClassSource[]>();

function findLibClass(root: string, name: string): EnvClassSource | undefined {
  const declaration = new RegExp(`\\bclass\\s+${name}\\b`);
  for (const file of listTs(join(root, 'libs'))) {
    const source = readFileSync(file, 'utf8');
    if (!declaration.test(source)) continue;
    if (!libClassCache.has(file)) libClassCache.set(file, parseEnvClasses(source));
    const found = libClassCache.get(file)?.find((cls) => cls.name === name);
    if (found) return found;
  }
  return undefined;
}

function listTs(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (entry === 'node_modules') return [];
    if (statSync(path).isDirectory()) return listTs(path);
    return entry.endsWith('.ts') && !entry.endsWith('.spec.ts') ? [path] : [];
  });
}
