import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

export const WORKSPACE_ROOT = join(__dirname, '../../../..');

export interface AppProcess {
  name: string;
  child: ChildProcess;
  output(): string;
  /** Resolves with the first match of `pattern` in the output, or rejects when the process exits or time runs out. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * Runs a built app (`dist/apps/<app>/main.js`) as its own process, from the workspace root or from
 * `root`, a copy of the checkout.
 */
export function startApp(app: string, env: Record<string, string>, root = WORKSPACE_ROOT): AppProcess {
  const child = spawn(process.execPath, [join(root, 'dist/apps', app, 'main.js')], {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: 'test',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const listeners = new Set<() => void>();
  const append = (chunk: Buffer) => {
    output += chunk.toString();
    listeners.forEach((listener) => listener());
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let hasExited = false;
  void exited.then(() => {
    hasExited = true;
    listeners.forEach((listener) => listener());
  });

  return {
    name: app,
    child,
    output: () => output,
    waitFor: (pattern, timeoutMs = 60_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const match = output.match(pattern);
          if (match) return done(() => resolve(match));
          if (hasExited)
            return done(() => reject(new Error(`${app} exited before printing ${pattern}:\n${output}`)));
        };
        const timer = setTimeout(
          () =>
            done(() => reject(new Error(`${app} did not print ${pattern} in ${timeoutMs} ms:\n${output}`))),
          timeoutMs,
        );
        const done = (finish: () => void) => {
          clearTimeout(timer);
          listeners.delete(check);
          finish();
        };
        listeners.add(check);
        check();
      }),
    stop: async (signal = 'SIGTERM') => {
      if (hasExited) return;
      child.kill(signal);
      await exited;
    },
  };
}
