/**
 * What a tool call did, across agents: whether a tool runs shell commands, and whether a command
 * verifies the work (tests, linter, type checker, formatter). Each agent names its command tool
 * differently (the registry's vocabularies, adapters/<agent>/vocabulary.ts), so mining (which reads transcripts of one agent) and replay (which may run another) compare
 * categories, not raw names. Shared by src/mine (evidence) and src/replay/checks.ts (scoring).
 */

/**
 * Tool names (lower-cased) that run an arbitrary shell command: the union of every agent's
 * `vocabulary.commandTools` in the agent registry (adapters/<agent>/vocabulary.ts). core cannot
 * import adapters (it is below them), so this is a copy that tests/unit/agent-registry.test.ts
 * keeps equal to the registry; add an agent's tools there first.
 */
const COMMAND_TOOLS = new Set(['bash', 'powershell', 'shell', 'shell_command', 'exec_command', 'local_shell', 'command_execution', 'run_in_terminal', 'run_shell_command', 'shell.execute', 'run_command']);

/** The command tool names this module knows (for the registry test). */
export function commandToolSet(): ReadonlySet<string> {
  return COMMAND_TOOLS;
}

export function isCommandTool(name: string): boolean {
  return COMMAND_TOOLS.has(name.trim().toLowerCase());
}

/**
 * Whether a backend's replay target can call a command tool at all. The CLI targets run with their
 * shell switched off (claude `--tools` without Bash, codex `--disable shell_tool`, copilot
 * `--deny-tool shell`: adapters/<agent>/exec.ts) and the HTTP backends call no tools, so only the
 * sim can: a check that the agent ran a command is only worth making for it.
 */
export function backendRunsCommands(backend: string): boolean {
  return backend === 'sim';
}

/**
 * The command tool each agent's transcripts and replays name (what a check on "ran a command"
 * shows): each agent's `vocabulary.primaryCommandTool`, kept equal to the registry by the same test.
 */
export const COMMAND_TOOL_OF_AGENT: Record<string, string> = { 'claude-code': 'Bash', codex: 'shell', copilot: 'bash', gemini: 'run_shell_command', pi: 'bash', cursor: 'shell.execute', opencode: 'bash', antigravity: 'run_command' };

/** The command tool a check names when no agent is known: the first agent's of the registry. */
export const DEFAULT_COMMAND_TOOL = COMMAND_TOOL_OF_AGENT['claude-code'];

export type VerifyKind = 'test' | 'lint' | 'typecheck' | 'format';

/**
 * Commands that verify work, by kind. Matched against a command line as the adapters store it
 * (`npx vitest run`, `bash -lc npm test`). Build and install commands are left out on purpose:
 * they say little about whether the answer was checked.
 */
const VERIFY_COMMANDS: Array<[VerifyKind, RegExp]> = [
  [
    'test',
    /(?:^|[\s;&|(])(?:(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?test(?::\S+)?\b|(?:npx\s+|pnpm\s+(?:exec\s+)?|yarn\s+)?(?:vitest|jest|mocha|ava|playwright\s+test)\b|pytest\b|python3?\s+-m\s+(?:pytest|unittest)\b|go\s+test\b|cargo\s+(?:test|nextest)\b|deno\s+test\b|bun\s+test\b|rspec\b|phpunit\b|ctest\b|make\s+(?:test|check)\b|dotnet\s+test\b|mvn\s+(?:\S+\s+)*test\b|gradlew?\s+(?:\S+\s+)*test\b|tox\b)/i,
  ],
  ['lint', /(?:^|[\s;&|(])(?:(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?lint\b|(?:npx\s+)?(?:eslint|stylelint|biome\s+(?:lint|check)|oxlint)\b|ruff\s+check\b|flake8\b|pylint\b|golangci-lint\b|cargo\s+clippy\b|rubocop\b|shellcheck\b)/i],
  ['typecheck', /(?:^|[\s;&|(])(?:(?:npx\s+)?tsc\b|(?:npm|pnpm|yarn)\s+(?:run\s+)?(?:typecheck|type-check|check-types)\b|mypy\b|pyright\b|cargo\s+check\b)/i],
  ['format', /(?:^|[\s;&|(])(?:(?:npx\s+)?prettier\b|(?:npm|pnpm|yarn)\s+(?:run\s+)?(?:format|fmt)\b|black\b|gofmt\b|cargo\s+fmt\b|rustfmt\b|ruff\s+format\b|biome\s+format\b)/i],
];

/** The verifying kinds a command line runs (empty for anything else). */
export function verifyKindsOfCommand(command: string): VerifyKind[] {
  return VERIFY_COMMANDS.filter(([, re]) => re.test(command)).map(([k]) => k);
}

/**
 * The verifying kinds one tool call ran: a command tool whose command verifies, or VS Code's
 * `runTests` (which runs the test command itself). Other tools (reads, edits) never count, even if their input mentions a test runner.
 */
export function verifyKindsOfCall(toolName: string, input: string): VerifyKind[] {
  const name = toolName.trim().toLowerCase();
  if (name === 'runtests') return ['test'];
  return isCommandTool(name) ? verifyKindsOfCommand(input) : [];
}
