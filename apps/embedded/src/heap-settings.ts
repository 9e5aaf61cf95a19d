import { spawn } from 'node:child_process';
import { setFlagsFromString } from 'node:v8';

/**
 * The embedded process's V8 heap (decision 198). Semi-spaces of 32 MB instead of 16: under load a
 * request lives for a few scavenges, and in a young generation twice as large its objects die there
 * instead of being promoted to the old one. An old generation that grows by half of what survives
 * each full collection instead of by up to four times: the live heap under load is about 70 MB, and
 * V8's own choice let the heap reach 300 MB before collecting it.
 */
const SEMI_SPACE_FLAG = '--max-semi-space-size=32';
const HEAP_GROWING_FLAG = '--heap-growing-percent=50';

/**
 * True when this process is to run the gateway. A young generation can only be sized when a process
 * starts, so a process started without the semi-space flag starts the gateway again as its child
 * with it and stays as its launcher: it passes SIGINT and SIGTERM on (SIGHUP as SIGTERM), exits as
 * the child exits, and loads nothing else. A process started with its own semi-space size runs the
 * gateway itself. The growing factor can be set at any time, so it is set here.
 */
export function startsWithHeapSettings(): boolean {
  if (process.execArgv.some((arg) => arg.startsWith('--max-semi-space-size'))) {
    // The launcher's IPC channel is only for noticing its end: it must not keep this process alive.
    process.channel?.unref();
    setFlagsFromString(HEAP_GROWING_FLAG);
    return true;
  }
  launchGateway();
  return false;
}

/**
 * Runs `stop` once the launcher is gone without passing a signal on (killed outright). A process
 * with an IPC channel (`process.send`, kept after the channel closes) was started by the launcher;
 * main.js and the gateway's bundle each hold a copy of this module, so no state of it is shared.
 */
export function whenLauncherGone(stop: () => void): void {
  if (typeof process.send !== 'function') return;
  if (!process.connected) stop();
  else process.once('disconnect', stop);
}

function launchGateway(): void {
  const child = spawn(process.execPath, [...process.execArgv, SEMI_SPACE_FLAG, ...process.argv.slice(1)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    // A process group of its own: a terminal's Ctrl+C reaches the launcher only, which passes it on once.
    detached: true,
  });
  process.on('SIGINT', () => child.kill('SIGINT'));
  process.on('SIGTERM', () => child.kill('SIGTERM'));
  process.on('SIGHUP', () => child.kill('SIGTERM'));
  child.once('error', (err) => {
    process.stderr.write(`Could not start the gateway: ${err.message}\n`);
    process.exit(1);
  });
  child.once('exit', (code, signal) => {
    if (signal === null) process.exit(code ?? 1);
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  });
}
