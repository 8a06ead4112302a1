import os from 'node:os';
import { defineConfig } from 'vitest/config';

// vitest's default is one worker fewer than the cores: on a 2-core machine that is ONE worker, and the
// suite ran file after file (16-17 min). Most integration files spend their time waiting on child
// processes (the CLI, the daemon, the agent CLIs) and on fsync, not on the CPU, so one worker per core
// plus one keeps both cores busy. Every file has its own sandboxed home (tests/helpers/sandbox.ts) and
// its own ports (servers listen on port 0), so files are independent of each other.
const cores = typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts', 'tests/**/*.test.tsx', 'adapters/**/*.test.ts', 'src/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: cores + 1,
    // tests/unit/ may start no child process (the setup file makes child_process throw there)
    setupFiles: ['tests/helpers/unit-no-child-processes.ts'],
  },
});
