/** The agent CLIs the `cli` backends can drive, by backend name. */
import type { ExecAdapter } from './exec-common.js';
import { claudeExec } from './claude-code/exec.js';
import { codexExec } from './codex/exec.js';
import { copilotExec } from './copilot/exec.js';

export const EXEC_ADAPTERS: Record<'claude' | 'codex' | 'copilot', ExecAdapter> = {
  claude: claudeExec,
  codex: codexExec,
  copilot: copilotExec,
};
