import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts', 'tests/**/*.test.tsx', 'adapters/**/*.test.ts', 'src/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // tests/unit/ may start no child process (the setup file makes child_process throw there)
    setupFiles: ['tests/helpers/unit-no-child-processes.ts'],
  },
});
