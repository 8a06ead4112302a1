/**
 * Mounts the review app on the terminal: alternate screen (the user's scrollback is left as it
 * was), Ctrl+C handled by the app, and a `suspend` that hands the terminal to a child process
 * ($EDITOR, a re-run) and takes it back.
 */
import React from 'react';
import { render, type Instance } from 'ink';
import { App } from './App.js';
import type { ReviewServices } from './services.js';
import type { Suspend } from './store-services.js';

const ENTER_ALT = '\x1b[?1049h\x1b[2J\x1b[H';
const LEAVE_ALT = '\x1b[?1049l';

export interface RunReviewOptions {
  initialId?: string;
  stdin?: NodeJS.ReadStream;
  stdout?: NodeJS.WriteStream;
  /** use the alternate screen (default true) */
  altScreen?: boolean;
}

export async function runReview(makeServices: (suspend: Suspend) => ReviewServices, opts: RunReviewOptions = {}): Promise<void> {
  const stdin = opts.stdin ?? process.stdin;
  const stdout = opts.stdout ?? process.stdout;
  const alt = opts.altScreen ?? true;
  let instance: Instance | null = null;
  const suspend: Suspend = (fn) => {
    instance?.clear();
    if (alt) stdout.write(LEAVE_ALT);
    stdout.write('\x1b[?25h'); // show the cursor for the child
    stdin.setRawMode?.(false);
    try {
      return fn();
    } finally {
      stdin.setRawMode?.(true);
      if (alt) stdout.write(ENTER_ALT);
    }
  };
  const services = makeServices(suspend);
  if (alt) stdout.write(ENTER_ALT);
  try {
    instance = render(<App services={services} initialId={opts.initialId} />, { stdin, stdout, exitOnCtrlC: false, patchConsole: false });
    // a closed terminal or a kill: unmount, so the terminal is restored (finally below)
    const stop = () => instance?.unmount();
    process.once('SIGTERM', stop);
    process.once('SIGHUP', stop);
    try {
      await instance.waitUntilExit();
    } finally {
      process.off('SIGTERM', stop);
      process.off('SIGHUP', stop);
    }
  } finally {
    instance?.cleanup();
    if (alt) stdout.write(LEAVE_ALT);
  }
}
