/**
 * Copilot has four transcript families: VS Code's Copilot Chat transcripts (the CLI's event
 * schema), VS Code chat sessions, Copilot CLI event logs and the legacy Copilot CLI session
 * documents (history-session-state).
 */
import type { LineParser, ReadMode } from '../types.js';
import { CopilotCliParser } from './cli-events.js';
import { CopilotLegacyParser } from './legacy.js';
import { isCopilotLegacyFile, isVscodeChatFile } from './paths.js';
import { VscodeChatParser } from './vscode.js';
import { createVscodeTranscriptParser, isVscodeTranscriptFile } from './vscode-transcripts.js';

export function copilotReadMode(filePath: string): ReadMode {
  return isVscodeChatFile(filePath) || isCopilotLegacyFile(filePath) ? 'whole' : 'append';
}

export function createCopilotParser(filePath: string, state: unknown): LineParser {
  if (isVscodeTranscriptFile(filePath)) return createVscodeTranscriptParser(filePath, state);
  if (isVscodeChatFile(filePath)) return new VscodeChatParser(filePath);
  if (isCopilotLegacyFile(filePath)) return new CopilotLegacyParser(filePath);
  return new CopilotCliParser(filePath, state);
}

export { copilotCliPrefilter, copilotCliShrinkable } from './cli-events.js';
