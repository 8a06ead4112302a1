/** Copilot has two transcript families: VS Code chat sessions and Copilot CLI event logs. */
import type { LineParser, ReadMode } from '../types.js';
import { CopilotCliParser } from './cli.js';
import { isVscodeChatFile } from './paths.js';
import { VscodeChatParser } from './vscode.js';

export function copilotReadMode(filePath: string): ReadMode {
  return isVscodeChatFile(filePath) ? 'whole' : 'append';
}

export function createCopilotParser(filePath: string, state: unknown): LineParser {
  return isVscodeChatFile(filePath) ? new VscodeChatParser(filePath) : new CopilotCliParser(filePath, state);
}

export { copilotCliPrefilter, copilotCliShrinkable } from './cli.js';
