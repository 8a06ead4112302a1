/**
 * What `doctor` says about each VS Code install's Copilot Chat stores: whether it writes the
 * transcripts store (Copilot Chat ≥ 0.51, the full record) or only `chatSessions/` (older builds,
 * or a sparse UI snapshot on newer ones), so a user whose history seems thin knows why.
 */
import path from 'node:path';
import type { Config } from '../../src/core/config.js';
import type { AgentDoctorNote } from '../agent.js';
import type { RootEnv } from '../types.js';
import { dirExists } from '../kit/walk.js';
import { listCopilotFiles, vscodeUserDirs } from './paths.js';
import { isVscodeTranscriptFile } from './vscode-transcripts.js';

export function copilotStoreNotes(config: Config, rootEnv: RootEnv): AgentDoctorNote[] {
  const notes: AgentDoctorNote[] = [];
  for (const user of vscodeUserDirs(config, rootEnv)) {
    const ws = path.join(user, 'workspaceStorage');
    if (!dirExists(ws)) continue;
    const files = listCopilotFiles({ agent: 'copilot', path: ws, exists: true, kind: 'vscode-workspace-storage' });
    const transcripts = files.filter(isVscodeTranscriptFile).length;
    const snapshots = files.length - transcripts;
    if (transcripts > 0) {
      notes.push({ status: 'ok', detail: `${ws}: Copilot Chat's transcripts store (${transcripts} session${transcripts === 1 ? '' : 's'}), read first; ${snapshots} chatSessions file${snapshots === 1 ? '' : 's'} beside it` });
    } else if (snapshots > 0) {
      notes.push({
        status: 'ok',
        detail: `${ws}: only chatSessions/ (${snapshots} file${snapshots === 1 ? '' : 's'}); no transcripts store yet (Copilot Chat before 0.51)`,
        fix: 'Copilot Chat 0.51+ writes GitHub.copilot-chat/transcripts/, a fuller record; update the extension to have it harvested',
      });
    }
  }
  return notes;
}
