/**
 * A stated value the user has since stopped keeping (issue 41): a correction quotes `## Unreleased`,
 * and the newest versions the user committed spell it `## [Unreleased]`. The start draft leaves such
 * a correction out, and the miner's training judge asks for it no longer: the newer correction may
 * have been said in a held-out session only, while what the user commits still shows the change of mind.
 */
import type { KeptOutcome } from '../core/records.js';
import { respelled } from './wording-lint.js';

/** The kept versions that must spell a value the other way, at the end of the record, to call a stated spelling stale. */
const STALE_AFTER = 2;

/**
 * Whether the value `rule` quotes (`## Unreleased`) is one the user has since stopped keeping: of
 * the kept versions that spell it either way, the newest `STALE_AFTER` (at least) all spell it
 * another way (`## [Unreleased]`), and the rule was not said after the first of them (when its
 * date is known; a correction a family's tasks all carry has no date of its own). A correction
 * that said the newer spelling may sit in a held-out session only; what the user commits now
 * still shows the change of mind, and a draft that kept the older value would teach it.
 */
export function staleByKept(rule: string, kept: readonly KeptOutcome[], saidAt: number | null): boolean {
  const lit = /`([^`]+)`/.exec(rule)?.[1]?.trim();
  if (!lit) return false;
  // each kept version, read line by line: does it write this spelling, or another spelling of it?
  const spelled: Array<{ at: number; same: boolean }> = [];
  for (const k of kept) {
    const lines = k.kept.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
    if (lines.some((l) => l.toLowerCase().includes(lit.toLowerCase()))) spelled.push({ at: k.at, same: true });
    else if (lines.some((l) => respelled(`\`${lit}\``, `\`${l}\``))) spelled.push({ at: k.at, same: false });
  }
  spelled.sort((a, b) => a.at - b.at);
  let trailing = 0;
  while (trailing < spelled.length && !spelled[spelled.length - 1 - trailing].same) trailing++;
  if (trailing < STALE_AFTER) return false;
  const switchedAt = spelled[spelled.length - trailing].at;
  return saidAt === null || saidAt < switchedAt;
}
