/**
 * Secret redaction, applied at ingest before anything is stored (and by the LLM layer to outbound
 * payloads). Each rule replaces the secret (only the secret: a key name or URL around it stays) with
 * a typed placeholder `[REDACTED:<kind>]`. Rules aim at high-confidence shapes; look-alikes such as
 * `sk-` prose, `pk_test_` publishable keys or `${VAR}` references are left alone.
 */

interface Rule {
  kind: string;
  re: RegExp;
  /** index of the capture group holding the secret; 0 = the whole match */
  group?: number;
  /** cheap substring test before running the regex */
  hint?: string | RegExp;
}

const RULES: Rule[] = [
  {
    kind: 'private-key',
    re: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|$)/g,
    hint: 'PRIVATE KEY',
  },
  { kind: 'anthropic-api-key', re: /\bsk-ant-(?:api|admin|oat|sid)\d{2}-[A-Za-z0-9_-]{20,}/g, hint: 'sk-ant-' },
  { kind: 'openai-api-key', re: /\bsk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,}/g, hint: 'sk-' },
  { kind: 'openai-api-key', re: /\bsk-(?!ant-)[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}\b/g, hint: 'T3BlbkFJ' },
  { kind: 'openai-api-key', re: /\bsk-(?!ant-|proj-|svcacct-|admin-)[A-Za-z0-9]{40,}\b/g, hint: 'sk-' },
  { kind: 'aws-access-key', re: /\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b/g, hint: /A[KSBC][IC]A/ },
  {
    kind: 'aws-secret-key',
    re: /\b(aws_?secret_?access_?key|AWS_SECRET_ACCESS_KEY|SecretAccessKey)(["']?\s*[:=]\s*["']?)([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])/gi,
    group: 3,
    hint: /secret/i,
  },
  { kind: 'github-token', re: /\bgh[pousr]_[A-Za-z0-9]{36,255}\b/g, hint: 'gh' },
  { kind: 'github-token', re: /\bgithub_pat_[A-Za-z0-9_]{22,255}\b/g, hint: 'github_pat_' },
  { kind: 'gitlab-token', re: /\bgl(?:pat|dt|ptt|rt|cbt|oas)-[A-Za-z0-9_-]{20,}\b/g, hint: 'gl' },
  { kind: 'slack-token', re: /\bxox[abposr]-(?:\d+-)?[A-Za-z0-9-]{10,}\b/g, hint: 'xox' },
  { kind: 'slack-webhook', re: /https:\/\/hooks\.slack\.com\/(?:services|workflows)\/[A-Za-z0-9/_-]{20,}/g, hint: 'hooks.slack.com' },
  { kind: 'stripe-key', re: /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}\b/g, hint: /[sr]k_(?:live|test)_/ },
  { kind: 'google-api-key', re: /\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/g, hint: 'AIza' },
  { kind: 'google-oauth-secret', re: /\bGOCSPX-[A-Za-z0-9_-]{28}\b/g, hint: 'GOCSPX-' },
  {
    kind: 'azure-connection-string',
    re: /\b(AccountKey|SharedAccessKey|SharedAccessSignature|Password)=([A-Za-z0-9+/=%&:._-]{20,}?)(?=;|"|'|\s|$)/g,
    group: 2,
    hint: /AccountKey|SharedAccess|;Password=/,
  },
  { kind: 'huggingface-token', re: /\bhf_[A-Za-z]{34}\b/g, hint: 'hf_' },
  { kind: 'npm-token', re: /\bnpm_[A-Za-z0-9]{36}\b/g, hint: 'npm_' },
  { kind: 'jwt', re: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{10,}/g, hint: 'eyJ' },
  {
    kind: 'url-password',
    re: /\b([a-z][a-z0-9+.-]{1,20}:\/\/[^\s:/@"'<>]{1,100}:)([^\s@/"'<>]{3,200})(@[^\s/"'<>]+)/gi,
    group: 2,
    hint: '://',
  },
  { kind: 'bearer-token', re: /\b(Authorization:\s*Bearer\s+|Bearer\s+)([A-Za-z0-9._~+/-]{20,}=*)/g, group: 2, hint: 'Bearer' },
  {
    kind: 'env-secret',
    // SECRET=…, API_KEY: "…", export GITHUB_TOKEN=… ; not $VAR / ${VAR} references or empty values
    re: /\b((?:export\s+)?[A-Za-z0-9_]*(?:SECRET|TOKEN|PASSWORD|PASSWD|PWD|API_?KEY|PRIVATE_?KEY|ACCESS_?KEY|CLIENT_?SECRET|AUTH_?KEY|CREDENTIALS?)[A-Za-z0-9_]*\s*[=:]\s*["']?)(?!\$|\[REDACTED|<|process\.env|os\.environ|null\b|undefined\b|true\b|false\b|None\b)([^\s"'`,;)}\]]{8,})/g,
    group: 2,
    hint: /SECRET|TOKEN|PASSW|PWD|KEY|CREDENTIAL/,
  },
  {
    kind: 'env-secret',
    // config files and code: api_token: "…", password = '…', clientSecret: "…" (quoted values only)
    re: /\b([A-Za-z0-9_]*(?:secret|token|password|passwd|api_?key|private_?key|access_?key|auth_?key)[A-Za-z0-9_]*["']?\s*[=:]\s*["'])(?!\$|\[REDACTED)([^\s"'`]{8,})(?=["'])/gi,
    group: 2,
    hint: /(?:secret|token|passw|api_?key|private_?key|access_?key|auth_?key)[A-Za-z0-9_]*["']?\s*[=:]\s*["']/i,
  },
];

const PLACEHOLDER = /^\[REDACTED:/;

export interface Redaction {
  text: string;
  count: number;
  kinds: string[];
}

/**
 * One pass that every secret shape must hit (a union of the rules' hints): most texts have none,
 * and then no rule runs at all. Lower-case names (`token`, `passw…`, `…key`) only matter followed by
 * `=`/`:` (the quoted env-secret rule), so prose such as "token count" does not wake every rule.
 */
const ANY_HINT =
  /PRIVATE KEY|\bsk-|T3BlbkFJ|\bA[KSBC][IC]A|[Ss]ecret|SECRET|\bgh[pousr]_|github_pat_|\bgl(?:pat|dt|ptt|rt|cbt|oas)-|\bxox|hooks\.slack\.com|[sr]k_(?:live|test)_|AIza|GOCSPX-|AccountKey|SharedAccess|Password|\bhf_|\bnpm_|eyJ|:\/\/[^\s/@"'<>]+:[^\s/@"'<>]+@|Bearer|TOKEN|PASSW|PWD|KEY|CREDENTIAL|(?:[Tt]oken|[Pp]assw|[Kk]ey)[A-Za-z0-9_]*["']?\s*[=:]/;

export function redactSecrets(text: string): Redaction {
  if (!ANY_HINT.test(text)) return { text, count: 0, kinds: [] };
  let out = text;
  let count = 0;
  const kinds = new Set<string>();
  for (const rule of RULES) {
    if (rule.hint !== undefined) {
      if (typeof rule.hint === 'string' ? !out.includes(rule.hint) : !rule.hint.test(out)) continue;
    }
    rule.re.lastIndex = 0;
    out = out.replace(rule.re, (...m: unknown[]) => {
      const whole = m[0] as string;
      const g = rule.group ?? 0;
      const secret = m[g] as string | undefined;
      if (!secret || PLACEHOLDER.test(secret)) return whole;
      if (rule.kind === 'env-secret' && !looksSecret(secret)) return whole;
      count++;
      kinds.add(rule.kind);
      if (g === 0) return `[REDACTED:${rule.kind}]`;
      const groups = m.slice(1, -2) as Array<string | undefined>;
      return groups.map((s, i) => (i + 1 === g ? `[REDACTED:${rule.kind}]` : (s ?? ''))).join('');
    });
  }
  return { text: out, count, kinds: [...kinds] };
}

/** Env-style values: a secret has some entropy; plain words, numbers and paths are not secrets. */
function looksSecret(v: string): boolean {
  if (/^\d+$/.test(v)) return false;
  if (/^[a-z]+(?:[-_][a-z]+)*$/.test(v)) return false; // "changeme", "your-api-key"
  if (v.startsWith('/') || v.startsWith('./') || v.startsWith('http')) return false;
  const classes = [/[a-z]/, /[A-Z]/, /\d/, /[^A-Za-z0-9]/].filter((r) => r.test(v)).length;
  return classes >= 2;
}
