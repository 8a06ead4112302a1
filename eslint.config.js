// Lint is part of `npm test`: typescript-eslint's recommended rules, a few that catch real bugs, and
// the house's one-way flow between folders (eslint/boundaries.js; docs/ARCHITECTURE.md).
import tseslint from 'typescript-eslint';
import house from './eslint/boundaries.js';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.tmp/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-explicit-any': 'warn',
      'no-constant-condition': ['error', { checkLoops: false }],
      'prefer-const': 'error',
    },
  },
  {
    files: ['src/**/*.{ts,tsx}', 'adapters/**/*.ts'],
    plugins: { house },
    rules: { 'house/boundaries': 'error' },
  },
);
