/**
 * A risk lint on every proposed edit before it is staged and again before it is applied. Skill
 * text is loaded by every later session of every agent, and transcripts carry text the user never
 * wrote (tool output, fetched pages, file contents): an instruction planted there can travel
 * through mining and the optimizer into a skill. What the lint looks for in the lines an edit
 * adds: piping a download to a shell, credential and key paths, exfiltration shapes (curl, wget,
 * nc, scp to a host the document did not already name), switching off safety or permission
 * settings, and prompt-injection phrasing. A flagged proposal is staged with its flags shown and
 * is applied only with `apply --force-risky`.
 */

export interface RiskFlag {
  /** `tool-output-only`: the new text repeats stored tool output with no ask, correction or judge behind it (provenance.ts) */
  rule: 'pipe-to-shell' | 'credential-path' | 'exfiltration' | 'safety-off' | 'prompt-injection' | 'tool-output-only';
  line: string;
  why: string;
}

const RULES: Array<{ rule: RiskFlag['rule']; re: RegExp; why: string }> = [
  { rule: 'pipe-to-shell', re: /\b(?:curl|wget|iwr|Invoke-WebRequest|fetch)\b[^\n|]*\|\s*(?:sudo\s+)?(?:ba|z|k|fi|da)?sh\b|\b(?:curl|wget)\b[^\n]*\|\s*(?:python3?|node|perl|ruby|iex)\b|\bbash\s+<\(\s*curl|\beval\s+"?\$\((?:curl|wget)/i, why: 'runs code downloaded from the network' },
  { rule: 'credential-path', re: /~?\/?\.aws\/credentials|\.ssh\/(?:id_[a-z0-9]+|authorized_keys)|\bid_(?:rsa|ed25519|ecdsa|dsa)\b|\.netrc\b|\.npmrc\b|\.pypirc\b|\.docker\/config\.json|\.kube\/config|\.config\/gh\/hosts\.yml|\.gnupg\b|\/etc\/shadow|keychain|\.env\b(?!\.example)/i, why: 'names a credential or key file' },
  { rule: 'safety-off', re: /--dangerously-skip-permissions|--no-verify\b|--yolo\b|bypassPermissions|dangerously[-_ ]?(?:bypass|allow)|approval[_-]?policy\s*[=:]\s*["']?never|sandbox[_-]?mode\s*[=:]\s*["']?danger|(?:disable|turn off|skip|bypass|ignore)\s+(?:the\s+)?(?:safety|security|permission|sandbox|approval|confirmation)s?(?:\s+(?:checks?|prompts?|settings?|rules?))?|chmod\s+(?:-R\s+)?777|set\s+-o\s+noclobber\s+off|git\s+push\s+--force\s+(?:origin\s+)?(?:main|master)/i, why: 'turns off a safety or permission setting' },
  { rule: 'prompt-injection', re: /ignore (?:all |any )?(?:the )?(?:previous|prior|above|earlier) (?:instructions|rules|messages)|disregard (?:the |your )?(?:previous |prior |system )?(?:instructions|rules|prompt)|you are now (?:a|an|in)\b|new system prompt|do not (?:tell|inform|mention (?:this )?to) the user|without (?:telling|asking|informing) the user|silently (?:run|send|upload|execute)|before (?:any|every|each) task,? (?:always )?(?:run|execute|send|fetch)/i, why: 'reads like an instruction planted to steer the agent' },
];

/** Hosts named in a URL or after a network command in `text`. */
function hostsIn(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(/\b[a-z][a-z0-9+.-]*:\/\/([^\s/:"'`<>)]+)/gi)) out.add(m[1].toLowerCase().replace(/^[^@]*@/, ''));
  for (const m of text.matchAll(/\b(?:curl|wget|nc|ncat|netcat|scp|rsync|ssh|sftp|ftp|telnet)\b[^\n]*?\s(?:[^\s@]+@)?([a-z0-9-]+(?:\.[a-z0-9-]+)+)(?::|\s|\/|$)/gi)) out.add(m[1].toLowerCase());
  return out;
}

const NETWORK_SEND = /\b(?:curl|wget|nc|ncat|netcat|scp|rsync|sftp|ftp|telnet|Invoke-WebRequest|iwr)\b|\b(?:POST|upload|send|exfiltrate)\b[^\n]*\bto\s+https?:\/\//i;

/**
 * Flags in the lines `candidate` adds to `base`. `knownText` (the base document and what the
 * project names) lists hosts that are not exfiltration targets.
 */
export function lintEdit(base: string, candidate: string, knownText = ''): RiskFlag[] {
  const before = new Set(base.split('\n').map((l) => l.trim()));
  const added = candidate.split('\n').filter((l) => l.trim() !== '' && !before.has(l.trim()));
  const known = hostsIn(`${base}\n${knownText}`);
  const flags: RiskFlag[] = [];
  for (const line of added) {
    for (const r of RULES) if (r.re.test(line)) flags.push({ rule: r.rule, line: line.trim().slice(0, 200), why: r.why });
    if (NETWORK_SEND.test(line)) {
      const foreign = [...hostsIn(line)].filter((h) => !known.has(h) && !/^(?:localhost|127\.0\.0\.1|example\.(?:com|org))$/.test(h));
      if (foreign.length) flags.push({ rule: 'exfiltration', line: line.trim().slice(0, 200), why: `sends to a host the skill never named (${foreign.join(', ')})` });
    }
  }
  return flags;
}

/** One line per flag, for the review and the apply refusal. */
export function describeRisk(flags: RiskFlag[]): string {
  return flags.map((f) => `${f.rule}: ${f.why} — "${f.line}"`).join('\n');
}
