/**
 * Claude Code's names and config section: the part of its record (index.ts) that a light caller
 * (`status`'s retention lines, adapters/retention.ts) needs without loading its parser and CLI driver.
 */
export const claudeIdentity = {
  id: 'claude-code',
  displayName: 'Claude Code',
  shortName: 'claude',
  aliases: ['claude'],
  configKey: 'claudeCode',
} as const;
