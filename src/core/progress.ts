/**
 * One small interface for progress of long work. The CLI renders a bar on a TTY, plain lines
 * otherwise, nothing with --json. Library code only calls these methods.
 */
export interface Progress {
  start(label: string, total?: number): void;
  tick(n?: number, detail?: string): void;
  log(line: string): void;
  done(summary?: string): void;
}

export const silentProgress: Progress = {
  start() {},
  tick() {},
  log() {},
  done() {},
};
