/**
 * A harvest pass runs its parse and write code for about a second, in two isolates (the writer and
 * a worker), and much of a cold pass's CPU went to V8's optimizing compiler on its helper threads:
 * ~0.4 s of 1.8 s on the bench corpus (100 MB). TurboFan's inlining makes each hot function's
 * compile several times larger (a parser with its callees inlined, compiled again after every
 * deoptimization) and buys nothing measurable here: the same parse path ran as fast without it
 * once warm (0.73 s per warm pass either way) and its first pass took 0.15 s less CPU. So while a
 * pass runs, inlining is off.
 *
 * V8 flags belong to the process (every isolate, the workers too): the flag is set when the first
 * pass starts and set back when the last one ends, unless the process was started with it.
 * Only how code is optimized changes, never what it computes.
 */
import v8 from 'node:v8';

const FLAG = 'turbo-inlining';
let passes = 0;

/** The user chose the flag themselves (`node --no-turbo-inlining`, NODE_OPTIONS): left as it is. */
function chosenByUser(): boolean {
  return [...process.execArgv, process.env.NODE_OPTIONS ?? ''].some((a) => a.includes(FLAG));
}

/** Runs `fn` (a harvest pass) with TurboFan inlining off for the process. */
export async function withLeanJit<T>(fn: () => Promise<T>): Promise<T> {
  const owned = !chosenByUser();
  if (owned && passes++ === 0) v8.setFlagsFromString(`--no-${FLAG}`);
  try {
    return await fn();
  } finally {
    if (owned && --passes === 0) v8.setFlagsFromString(`--${FLAG}`);
  }
}
