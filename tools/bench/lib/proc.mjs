// What a target costs, read from /proc: the CPU time and memory of a process and all its
// descendants (an embedded PostgreSQL and its backends count as the gateway's own cost), and how
// busy each core was (to tell how much of a run other processes on the machine took).
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second and page size of this kernel (fields of /proc/<pid>/stat are in these). */
export const HZ = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
export const PAGE_BYTES = Number(execFileSync('getconf', ['PAGESIZE']).toString().trim()) || 4096;

/**
 * One line of /proc/<pid>/stat. The command name sits in parentheses and may itself hold spaces or
 * parentheses, so fields are counted from the last ')'. Times are in ticks, rss in pages.
 */
export function parseStat(line) {
  const open = line.indexOf('(');
  const close = line.lastIndexOf(')');
  // field n (1-based, man 5 proc) is fields[n - 3] after the command name
  const fields = line.slice(close + 2).split(' ');
  return {
    pid: Number(line.slice(0, open).trim()),
    comm: line.slice(open + 1, close),
    ppid: Number(fields[1]),
    utime: Number(fields[11]),
    stime: Number(fields[12]),
    cutime: Number(fields[13]),
    cstime: Number(fields[14]),
    rssPages: Number(fields[21]),
  };
}

/** Every process of the machine, by pid. Processes that end while being read are left out. */
export function snapshotProcesses() {
  const processes = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = parseStat(readFileSync(`/proc/${entry}/stat`, 'latin1'));
      processes.set(stat.pid, stat);
    } catch {
      // ended between readdir and read
    }
  }
  return processes;
}

/** The given pids and all their descendants present in `processes`. */
export function processTree(roots, processes) {
  const children = new Map();
  for (const stat of processes.values()) {
    if (!children.has(stat.ppid)) children.set(stat.ppid, []);
    children.get(stat.ppid).push(stat.pid);
  }
  const tree = new Set();
  const queue = roots.filter((pid) => processes.has(pid));
  while (queue.length) {
    const pid = queue.shift();
    if (tree.has(pid)) continue;
    tree.add(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return tree;
}

/** CPU ticks of a process, its reaped children included (short-lived helpers count too). */
export const ticksOf = (stat) => stat.utime + stat.stime + stat.cutime + stat.cstime;

/**
 * CPU seconds the processes of `tree` (pids present at the end) used between two snapshots; a pid
 * absent from the first snapshot started in between and counts whole.
 */
export function cpuSecondsBetween(before, after, tree) {
  let ticks = 0;
  for (const pid of tree) {
    const end = after.get(pid);
    if (!end) continue;
    const start = before.get(pid);
    ticks += ticksOf(end) - (start ? ticksOf(start) : 0);
  }
  return ticks / HZ;
}

/** Per core from /proc/stat: busy ticks (user, nice, system, irq, softirq) and all ticks. */
export function parseCpuLines(text) {
  const cores = [];
  for (const line of text.split('\n')) {
    const match = /^cpu(\d+)\s+(.*)$/.exec(line);
    if (!match) continue;
    const [user, nice, system, idle, iowait, irq, softirq, steal] = match[2].split(/\s+/).map(Number);
    const busy = user + nice + system + irq + softirq;
    cores.push({ busy, all: busy + idle + iowait + steal });
  }
  return cores;
}

export const readCpuCores = () => parseCpuLines(readFileSync('/proc/stat', 'latin1'));

/** Busy CPU seconds over all cores between two readings, and the wall time they span (seconds). */
export function machineBusyBetween(before, after) {
  let busy = 0;
  let all = 0;
  for (let i = 0; i < after.length; i++) {
    busy += after[i].busy - before[i].busy;
    all += after[i].all - before[i].all;
  }
  return { busySeconds: busy / HZ, wallSeconds: all / after.length / HZ };
}

/** Resident memory of each process of `tree`, in MB, with its command name. */
export function rssOf(tree, processes) {
  return [...tree]
    .filter((pid) => processes.has(pid))
    .map((pid) => {
      const stat = processes.get(pid);
      return { pid, comm: stat.comm, mb: (stat.rssPages * PAGE_BYTES) / 1048576 };
    });
}

/** Private resident memory (RssAnon of /proc/<pid>/status) in MB, or null once the process is gone. */
export function privateMbOf(pid) {
  try {
    const match = /^RssAnon:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'latin1'));
    return match ? Number(match[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/** Resident memory (VmRSS of /proc/<pid>/status) in MB, or null once the process is gone. */
export function residentMbOf(pid) {
  try {
    const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'latin1'));
    return match ? Number(match[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/** The Pss line of /proc/<pid>/smaps_rollup in MB, or null when the text has none. */
export function parsePssMb(text) {
  const match = /^Pss:\s+(\d+) kB/m.exec(text);
  return match ? Number(match[1]) / 1024 : null;
}

/**
 * Proportional set size (Pss of /proc/<pid>/smaps_rollup) in MB: each shared page divided among the
 * processes that map it, so that summed over a tree (PostgreSQL's backends share its buffers) shared
 * memory counts once. Null once the process is gone or when smaps_rollup cannot be read (kernel
 * before 4.14, or a process of another user without the right to read it).
 */
export function pssMbOf(pid) {
  try {
    return parsePssMb(readFileSync(`/proc/${pid}/smaps_rollup`, 'latin1'));
  } catch {
    return null;
  }
}

/**
 * PSS of each process of `tree` in MB, and their sum. A process whose PSS cannot be read counts with
 * its RSS from `processes` (an overcount, flagged by `fallbacks`); one that ended in between not at all.
 */
export function pssOf(tree, processes) {
  const each = [];
  let fallbacks = 0;
  for (const pid of tree) {
    let mb = pssMbOf(pid);
    if (mb === null) {
      const stat = processes.get(pid);
      if (!stat) continue;
      mb = (stat.rssPages * PAGE_BYTES) / 1048576;
      fallbacks++;
    }
    each.push({ pid, mb });
  }
  return { each, total: each.reduce((sum, p) => sum + p.mb, 0), fallbacks };
}
