/**
 * Provider secret shapes, as data. Most patterns are adapted from the default rule set of gitleaks
 * (https://github.com/gitleaks/gitleaks, config/gitleaks.toml; MIT licence, Copyright (c) 2019
 * Zachary Rice): the same prefixes and lengths, rewritten for JavaScript regexes and tightened
 * with word boundaries so that they can run on every stored text. A rule replaces only its
 * `group` (the secret), so the key name or the URL around it stays readable.
 *
 * `hint` is a plain substring or a small regex that every match contains: the engine runs a rule
 * only when its hint is present, and one union of all hints decides whether a text needs any rule.
 */

export interface SecretRule {
  kind: string;
  re: RegExp;
  /** index of the capture group holding the secret; 0 = the whole match */
  group?: number;
  /** regex source every match contains (used for the per-rule and the union prefilter) */
  hint: string;
}

/**
 * The hint of a case-insensitive rule, in every case (`[Ss][Ee]…`): a hint must hold in every
 * match, or whether a rule runs depends on text elsewhere (an upper-case `AUTHORIZATION: BASIC`
 * was redacted only when a `basic` stood somewhere else in the text).
 */
function anyCase(word: string): string {
  return [...word].map((c) => (/[a-z]/i.test(c) ? `[${c.toUpperCase()}${c.toLowerCase()}]` : c)).join('');
}

export const PROVIDER_RULES: SecretRule[] = [
  {
    kind: 'private-key',
    re: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|$)/g,
    hint: 'PRIVATE KEY',
  },
  { kind: 'anthropic-api-key', re: /\bsk-ant-(?:api|admin|oat|sid)\d{2}-[A-Za-z0-9_-]{20,}/g, hint: 'sk-ant-' },
  { kind: 'openai-api-key', re: /\bsk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,}/g, hint: 'sk-' },
  { kind: 'openai-api-key', re: /\bsk-(?!ant-)[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}\b/g, hint: 'T3BlbkFJ' },
  { kind: 'openai-api-key', re: /\bsk-(?!ant-|proj-|svcacct-|admin-)[A-Za-z0-9]{40,}\b/g, hint: 'sk-' },
  { kind: 'aws-access-key', re: /\b(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[0-9A-Z]{16}\b/g, hint: 'A[KSBC3][IT]' },
  {
    kind: 'aws-secret-key',
    re: /\b(aws_?secret_?access_?key|SecretAccessKey|aws_?secret)(["']?\s*[:=]\s*["']?)([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])/gi,
    group: 3,
    hint: anyCase('secret'),
  },
  { kind: 'github-token', re: /\bgh[pousr]_[A-Za-z0-9]{36,255}\b/g, hint: 'gh[pousr]_' },
  { kind: 'github-token', re: /\bgithub_pat_[A-Za-z0-9_]{22,255}\b/g, hint: 'github_pat_' },
  { kind: 'gitlab-token', re: /\bgl(?:pat|dt|ptt|rt|cbt|oas|soat|ffct|agent|imt)-[A-Za-z0-9_-]{20,}\b/g, hint: '\\bgl[a-z]{2,5}-' },
  { kind: 'slack-token', re: /\bxox[abposre]-(?:\d+-)?[A-Za-z0-9-]{10,}\b/g, hint: 'xox' },
  { kind: 'slack-webhook', re: /https:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9/_-]{20,}/g, hint: 'hooks\\.slack\\.com' },
  { kind: 'discord-webhook', re: /https:\/\/(?:ptb\.|canary\.)?discord(?:app)?\.com\/api\/webhooks\/\d+\/([A-Za-z0-9_-]{60,})/g, group: 1, hint: 'discord' },
  { kind: 'stripe-key', re: /\b(?:sk|rk)_(?:live|test|prod)_[A-Za-z0-9]{16,}\b/g, hint: '[sr]k_(?:live|test|prod)_' },
  { kind: 'google-api-key', re: /\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/g, hint: 'AIza' },
  { kind: 'google-oauth-secret', re: /\bGOCSPX-[A-Za-z0-9_-]{28}\b/g, hint: 'GOCSPX-' },
  {
    kind: 'azure-connection-string',
    // (not a `<placeholder>`, `${VAR}` or `%VAR%`: those are references, and the key-name rule decides them)
    re: /\b(AccountKey|SharedAccessKey|SharedAccessSignature|Password|Pwd)=((?![<${%])[^;"'\s]{6,}?)(?=;|"|'|\s|$)/gi,
    group: 2,
    hint: [anyCase('AccountKey'), anyCase('SharedAccess'), `${anyCase('password')}=`, `${anyCase('pwd')}=`].join('|'),
  },
  { kind: 'azure-sas-signature', re: /([?&]sig=)([A-Za-z0-9%+/=]{20,})/g, group: 2, hint: 'sig=' },
  { kind: 'azure-ad-client-secret', re: /(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])/g, hint: '\\dQ~' },
  { kind: 'twilio-api-key', re: /\bSK[0-9a-fA-F]{32}\b/g, hint: 'SK[0-9a-fA-F]' },
  { kind: 'sendgrid-api-key', re: /\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b/g, hint: 'SG\\.' },
  { kind: 'mailgun-api-key', re: /\bkey-[0-9a-zA-Z]{32}\b/g, hint: 'key-' },
  { kind: 'mailchimp-api-key', re: /\b[0-9a-f]{32}-us\d{1,2}\b/g, hint: '-us\\d' },
  { kind: 'huggingface-token', re: /\bhf_[A-Za-z]{34}\b/g, hint: 'hf_' },
  { kind: 'npm-token', re: /\bnpm_[A-Za-z0-9]{36}\b/g, hint: 'npm_' },
  { kind: 'pypi-token', re: /\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}/g, hint: 'pypi-AgEI' },
  { kind: 'digitalocean-token', re: /\bdo[por]_v1_[a-f0-9]{64}\b/g, hint: 'do[por]_v1_' },
  { kind: 'shopify-token', re: /\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b/g, hint: 'shp' },
  { kind: 'databricks-token', re: /\bdapi[a-f0-9]{32}(?:-\d)?\b/g, hint: 'dapi' },
  { kind: 'doppler-token', re: /\bdp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,44}\b/g, hint: 'dp\\.' },
  { kind: 'linear-api-key', re: /\blin_api_[A-Za-z0-9]{40}\b/g, hint: 'lin_api_' },
  { kind: 'newrelic-key', re: /\bNR(?:AK|JS|II)-[A-Za-z0-9]{27}\b/g, hint: 'NR[AJI]' },
  { kind: 'postman-key', re: /\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b/g, hint: 'PMAK-' },
  { kind: 'grafana-token', re: /\b(?:glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/]{32,400}={0,2})/g, hint: 'gl[sc]' },
  { kind: 'atlassian-token', re: /\bATATT3[A-Za-z0-9_=-]{150,}/g, hint: 'ATATT3' },
  { kind: 'age-secret-key', re: /\bAGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}\b/g, hint: 'AGE-SECRET-KEY' },
  { kind: 'square-token', re: /\bsq0(?:atp|csp)-[0-9A-Za-z_-]{22,43}\b/g, hint: 'sq0' },
  { kind: 'telegram-bot-token', re: /\b\d{5,16}:AA[0-9A-Za-z_-]{32,33}\b/g, hint: ':AA' },
  { kind: 'jwt', re: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{10,}/g, hint: 'eyJ' },
  {
    kind: 'url-password',
    // scheme://user:pass@host, scheme://:pass@host, and a password that itself holds `@` (the
    // greedy password runs to the last `@` before the host)
    re: /\b([a-z][a-z0-9+.-]{1,20}:\/\/[^\s:/@"'<>]{0,100}:)([^\s/"'<>]{1,200})(@[A-Za-z0-9.-]+(?::\d+)?)(?=[/?#\s"'<>)]|$)/gi,
    group: 2,
    hint: ':\\/\\/[^\\s/"\'<>]*:[^\\s/"\'<>]*@',
  },
  { kind: 'bearer-token', re: /\b(Bearer\s+)([A-Za-z0-9._~+/-]{16,}=*)/g, group: 2, hint: 'Bearer' },
  { kind: 'basic-auth', re: /\b(Authorization["']?\s*[:=]\s*["']?Basic\s+)([A-Za-z0-9+/]{8,}={0,2})/gi, group: 2, hint: anyCase('basic') },
  { kind: 'basic-auth', re: /(\s(?:-u|--user)\s+["']?[^\s:"']{1,64}:)([^\s"']{3,})/g, group: 2, hint: '-u |--user ' },
];
