// Lint is part of `npm test`: typescript-eslint's recommended rules, a few that catch real bugs, and
// the house's one-way flow between folders (eslint/boundaries.js; docs/ARCHITECTURE.md).
import tseslint from 'typescript-eslint';
import house from './eslint/boundaries.js';

/**
 * Whole string literals that name one agent: ids, CLI binaries, config keys, tool names, envelope
 * tags and the env vars of agent homes. (Prose in comments and longer messages is not matched.)
 */
const VENDOR_NAMES = [
  '^(claude-code|claude|codex|copilot|gemini|gemini-cli|claudeCode)$',
  '^(Bash|Skill|SlashCommand|run_in_terminal|run_shell_command|activate_skill|shell_command|exec_command|local_shell|command_execution)$',
  '^(copilot-chat|GitHub\\.copilot-chat|github\\.copilot-chat|chatSessions|session-state|workspaceStorage)$',
  '^(system-reminder|environment_context|session_context|ide_selection|ide_opened_file)$',
  '^(CLAUDE_CONFIG_DIR|CODEX_HOME|COPILOT_HOME|GEMINI_CLI_HOME)$',
  '^(CLAUDE\\.md|AGENTS\\.md|GEMINI\\.md|\\.claude|\\.codex|\\.copilot|\\.gemini)$',
].join('|');

export default tseslint.config(
  { ignores: ['dist/**', 'dist-bench/**', 'node_modules/**', 'coverage/**', '.tmp/**'] },
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
  // Vendor names stay in adapters/: src/ learns an agent's ids, tools, tags, binaries and config
  // keys from the agent registry (adapters/index.ts). core/records.ts, core/config.ts and
  // core/tool-kinds.ts sit below adapters and hold checked copies (tests/unit/agent-registry.test.ts);
  // the demo writes sample transcripts in each vendor's own format.
  {
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    ignores: ['src/core/records.ts', 'src/core/config.ts', 'src/core/config-schema.ts', 'src/core/tool-kinds.ts', 'src/demo/**', 'src/cli/commands/demo.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: `Literal[value=/${VENDOR_NAMES}/]`,
          message: 'an agent-specific name in src/: take it from the agent registry (adapters/index.ts), or add it to the agent record',
        },
        {
          selector: `TemplateElement[value.raw=/${VENDOR_NAMES}/]`,
          message: 'an agent-specific name in src/: take it from the agent registry (adapters/index.ts), or add it to the agent record',
        },
      ],
    },
  },
);
