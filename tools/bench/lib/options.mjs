// The command line of `npm run bench` (pure, so the unit test covers it).

export const USAGE = `npm run bench -- [options]

  --quick                 a short run: 3 s per measurement, 1 repetition, chat at 1 and 32 connections,
                          stream and embeddings at 32 (unless --connections says otherwise), long answers
                          for 5 s
  --modes LIST            gateway modes to measure: embedded,distributed   [embedded,distributed]
  --connections LIST      connections for chat, stream and embeddings     [1,32,128]
  --streams LIST          concurrent streams for time to first byte       [32,256]
  --scenarios LIST        chat,stream,embed,ttfb,long                      [all]
  --long-streams LIST     concurrent streams of long answers (long)       [64,256]
  --long-chunks N         content frames of a long answer                 [200]
  --long-delay-ms MS      milliseconds between two frames of a long answer [20]
  --long-duration S       seconds per long measurement (an answer lasts chunks × delay) [20]
  --duration S            seconds per measurement                         [10]
  --reps N                repetitions (target order rotates each time)    [3]
  --warmup S              seconds of warm-up per target and scenario      [3]
  --soak S                then a soak of S seconds at 32 connections per gateway mode, RSS, PSS and private
                          memory per process [0: none]
  --portkey DIR           also measure Portkey installed in DIR (../shared/bench/install-portkey.sh puts it in
                          /tmp/gateway-bench/portkey)
  --with-rate-limits      keep the rate limiter running (limits no run reaches) instead of turning it off
  --no-build              use dist/ as it is
  --no-pin                do not pin targets and the mock with the load generators to their cores
  --server-cpus LIST      cores of the targets (taskset -c)                [0]
  --client-cpus LIST      cores of the mock and the load generators        [1]
  --replicas N            distributed mode: N processes of the gateway and of each service; the load is
                          split over the gateway replicas                  [1]
  --nats-url URL          distributed mode on this NATS instead of a private nats-server
  --database-url URL      the PostgreSQL server for the distributed mode [postgres://postgres@127.0.0.1:5432/postgres]
  --out DIR               where results go                                [bench/results]
  --suite history [...]   the history list benchmark instead (tools/bench/history-bench.mjs; its own options follow)
`;

const DEFAULTS = {
  modes: ['embedded', 'distributed'],
  connections: [1, 32, 128],
  streams: [32, 256],
  scenarios: ['chat', 'stream', 'embed', 'ttfb', 'long'],
  longStreams: [64, 256],
  longChunks: 200,
  longDelayMs: 20,
  longDuration: 20,
  duration: 10,
  reps: 3,
  warmup: 3,
  soak: 0,
  portkey: null,
  build: true,
  rateLimits: false,
  pin: true,
  serverCpus: '0',
  clientCpus: '1',
  replicas: 1,
  natsUrl: null,
  databaseUrl: 'postgres://postgres@127.0.0.1:5432/postgres',
  out: 'bench/results',
  quick: false,
};
const QUICK = { connections: [1, 32], duration: 3, longDuration: 5, reps: 1, warmup: 1 };
const MODES = ['embedded', 'distributed'];
const SCENARIOS = ['chat', 'stream', 'embed', 'ttfb', 'long'];

const list = (value) =>
  value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
const positiveInts = (name, value) => {
  const numbers = list(value).map(Number);
  if (!numbers.length || numbers.some((n) => !Number.isInteger(n) || n < 1))
    throw new Error(`${name} takes positive integers, e.g. 1,32`);
  return numbers;
};
const oneOf = (name, allowed, value) => {
  const items = list(value);
  const unknown = items.filter((item) => !allowed.includes(item));
  if (unknown.length)
    throw new Error(`${name}: unknown ${unknown.join(', ')} (one of ${allowed.join(', ')})`);
  return items;
};
const cpuList = (name, value) => {
  if (!/^\d+(-\d+)?(,\d+(-\d+)?)*$/.test(value))
    throw new Error(`${name} takes a taskset list, e.g. 0 or 0-3`);
  return value;
};
const seconds = (name, value, min) => {
  const n = Number(value);
  if (!Number.isFinite(n) || n < min) throw new Error(`${name} takes a number of seconds ≥ ${min}`);
  return n;
};

/**
 * Options from argv (after `node bench.mjs`). `--quick` sets short defaults that options given
 * beside it still override. Returns `{ help: true }`, `{ suite: 'history', rest }` or the options.
 */
export function parseOptions(argv) {
  if (argv.includes('--help') || argv.includes('-h')) return { help: true };
  const suiteAt = argv.indexOf('--suite');
  if (suiteAt >= 0) {
    const suite = argv[suiteAt + 1];
    if (suite !== 'history') throw new Error(`--suite: unknown ${suite} (history)`);
    return { suite, rest: [...argv.slice(0, suiteAt), ...argv.slice(suiteAt + 2)] };
  }
  const options = { ...DEFAULTS, ...(argv.includes('--quick') ? { ...QUICK, quick: true } : {}) };
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i];
    const value = () => {
      const next = argv[++i];
      if (next === undefined || next.startsWith('--')) throw new Error(`${name} needs a value`);
      return next;
    };
    switch (name) {
      case '--quick':
        break;
      case '--modes':
        options.modes = oneOf(name, MODES, value());
        break;
      case '--connections':
        options.connections = positiveInts(name, value());
        options.connectionsGiven = true;
        break;
      case '--streams':
        options.streams = positiveInts(name, value());
        break;
      case '--scenarios':
        options.scenarios = oneOf(name, SCENARIOS, value());
        break;
      case '--long-streams':
        options.longStreams = positiveInts(name, value());
        break;
      case '--long-chunks':
        options.longChunks = positiveInts(name, value())[0];
        break;
      case '--long-delay-ms':
        options.longDelayMs = positiveInts(name, value())[0];
        break;
      case '--long-duration':
        options.longDuration = seconds(name, value(), 1);
        break;
      case '--duration':
        options.duration = seconds(name, value(), 1);
        break;
      case '--reps':
        options.reps = positiveInts(name, value())[0];
        break;
      case '--warmup':
        options.warmup = seconds(name, value(), 0);
        break;
      case '--soak':
        options.soak = seconds(name, value(), 0);
        break;
      case '--portkey':
        options.portkey = value();
        break;
      case '--with-rate-limits':
        options.rateLimits = true;
        break;
      case '--no-build':
        options.build = false;
        break;
      case '--no-pin':
        options.pin = false;
        break;
      case '--server-cpus':
        options.serverCpus = cpuList(name, value());
        break;
      case '--client-cpus':
        options.clientCpus = cpuList(name, value());
        break;
      case '--replicas':
        options.replicas = positiveInts(name, value())[0];
        break;
      case '--nats-url':
        options.natsUrl = value();
        break;
      case '--database-url':
        options.databaseUrl = value();
        break;
      case '--out':
        options.out = value();
        break;
      default:
        throw new Error(`unknown option ${name} (npm run bench -- --help)`);
    }
  }
  return options;
}

/** Connection counts of a request scenario: all of --connections, but only 32 for stream and embeddings in a quick run. */
export function connectionsFor(options, scenario) {
  if (options.quick && !options.connectionsGiven && scenario !== 'chat') return [32];
  return options.connections;
}
