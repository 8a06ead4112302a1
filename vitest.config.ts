import os from 'node:os';
import path from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

// vitest's default is one worker fewer than the cores: on a 2-core machine that is ONE worker, and the
// suite ran file after file (16-17 min). Most integration files spend their time waiting on child
// processes (the CLI, the daemon, the agent CLIs) and on fsync, not on the CPU, so one worker per core
// plus one keeps both cores busy. Every file has its own sandboxed home (tests/helpers/sandbox.ts) and
// its own ports (servers listen on port 0), so files are independent of each other.
const cores = typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;

/**
 * Longest first. With a history (node_modules/.vite/vitest) vitest orders files by their last
 * duration; a fresh clone has none, and took them in glob order, so a slow file that came last ran
 * alone at the end. Without a history: the e2e and integration files (child processes, tens of
 * seconds) go before the unit files (in-process, a second or two), the slowest named ones first.
 */
const SLOWEST = ['tests/integration/apply-crash.test.ts', 'tests/e2e/daemon.test.ts', 'tests/integration/json-shapes-cli.test.ts', 'tests/integration/privacy-cli.test.ts'];
class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const rel = (f: TestSpecification) => path.relative(root, f.moduleId).split(path.sep).join('/');
    const known = files.filter((f) => this.ctx.cache.getFileTestResults(`${f.project.name}:${rel(f)}`)).length;
    if (known >= files.length / 2) return super.sort(files);
    const rank = (f: TestSpecification) => {
      const named = SLOWEST.indexOf(rel(f));
      if (named >= 0) return named;
      return rel(f).startsWith('tests/e2e/') ? 10 : rel(f).startsWith('tests/integration/') ? 11 : 12;
    };
    return [...files].sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts', 'tests/**/*.test.tsx', 'adapters/**/*.test.ts', 'src/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: cores + 1,
    sequence: { sequencer: LongestFirst },
    // tests/unit/ may start no child process (the setup file makes child_process throw there)
    setupFiles: ['tests/helpers/unit-no-child-processes.ts'],
  },
});
