/**
 * Redaction corpus: secrets in the shapes they take in real transcripts (shell output, .env files,
 * YAML, kubectl, connection strings, logs), and look-alikes that must survive untouched (ids and
 * hashes a session is full of). Every positive must lose its secret whole: no 12-char run of it may
 * remain in the redacted text, so a partial match does not count as found.
 */
import { describe, expect, it } from 'vitest';
import { redactSecrets } from '../../src/core/redact.js';

/** [name, text, the secret inside it] */
export const CORPUS_SECRETS: Array<[string, string, string]> = [
  ['openai project key in export', 'export OPENAI_API_KEY=sk-proj-Qw3rTy9uIo0pAs5dFg7hJk2lZx4cVb6nMq1wEr8tYu', 'sk-proj-Qw3rTy9uIo0pAs5dFg7hJk2lZx4cVb6nMq1wEr8tYu'],
  ['anthropic key in a header', 'x-api-key: sk-ant-api03-Zq8Xw7Cv6Bn5Mm4Ll3Kk2Jj1Hh0Gg9Ff8Dd7Ss6Aa5Qq4Ww3Ee2Rr1Tt0Yy9Uu8Ii7Oo6Pp5-AbCdEfAA', 'sk-ant-api03-Zq8Xw7Cv6Bn5Mm4Ll3Kk2Jj1Hh0Gg9Ff8Dd7Ss6Aa5Qq4Ww3Ee2Rr1Tt0Yy9Uu8Ii7Oo6Pp5-AbCdEfAA'],
  ['aws access key id in ini', '[default]\naws_access_key_id = AKIAQ7RZ4N2LXW5K3M8P', 'AKIAQ7RZ4N2LXW5K3M8P'],
  ['aws secret in ini', 'aws_secret_access_key = q8Zk2+Lm4Np6Rt8Vx0Bz3Df5Hj7Kl9Mn1Pq3St5W', 'q8Zk2+Lm4Np6Rt8Vx0Bz3Df5Hj7Kl9Mn1Pq3St5W'],
  ['aws secret without a variable name', 'created user; the key pair is AKIAZ3RQ8V6N4M2LXK7P / tY7uP0oQ9wE8rT6yU5iO4pA3sD2fG1hJ0kL9zX+c', 'tY7uP0oQ9wE8rT6yU5iO4pA3sD2fG1hJ0kL9zX+c'],
  ['aws secret in a json reply', '{"AccessKeyId":"ASIAR4X2M7Q9L3K8N5P6","SecretAccessKey":"Lm0Nb9Vc8Xz7As6Df5Gh4Jk3Lq2Wr1Et0Yu9Io8P"}', 'Lm0Nb9Vc8Xz7As6Df5Gh4Jk3Lq2Wr1Et0Yu9Io8P'],
  ['github classic pat', 'git remote set-url origin https://ghp_R8t2Yq9Wm4Xk7Lp3Nz6Vb1Hc5Jd0Fs2Ga8Ke@github.com/acme/app.git', 'ghp_R8t2Yq9Wm4Xk7Lp3Nz6Vb1Hc5Jd0Fs2Ga8Ke'],
  ['github fine-grained pat', 'GH_TOKEN=github_pat_11AZQ3X7Y0aBcDeFgHiJkL_mNoPqRsTuVwXyZ0123456789abcdefghijklmnopqrstuvwxyzAB', 'github_pat_11AZQ3X7Y0aBcDeFgHiJkL_mNoPqRsTuVwXyZ0123456789abcdefghijklmnopqrstuvwxyzAB'],
  ['gitlab pat', 'glab auth login --token glpat-Xk3mP9qR2sT7vW4yZ8aB', 'glpat-Xk3mP9qR2sT7vW4yZ8aB'],
  ['slack bot token', 'SLACK_BOT=xoxb-2048123456-4096789012345-Qw8Er7Ty6Ui5Op4As3Df2Gh1', 'xoxb-2048123456-4096789012345-Qw8Er7Ty6Ui5Op4As3Df2Gh1'],
  ['stripe live key', 'Stripe::API_KEY = sk_live_51Hx7Kq2Lm9Np4Rt8Vx3Bz6Df1Hj5', 'sk_live_51Hx7Kq2Lm9Np4Rt8Vx3Bz6Df1Hj5'],
  ['google api key', 'const url = `https://maps.googleapis.com/maps/api/js?key=AIzaSyD4x7Qm2Lp9Nk3Rt8Vw1Zb6Hc5Jf0Gs-a2`', 'AIzaSyD4x7Qm2Lp9Nk3Rt8Vw1Zb6Hc5Jf0Gs-a2'],
  ['twilio api key sid + secret', 'twilio api:core:keys:create → sid SK2f7c9e1b4a6d8f0c3e5a7b9d1f3e5a7c secret', 'SK2f7c9e1b4a6d8f0c3e5a7b9d1f3e5a7c'],
  ['twilio auth token by name', 'TWILIO_AUTH_TOKEN=9f8e7d6c5b4a39281706f5e4d3c2b1a0', '9f8e7d6c5b4a39281706f5e4d3c2b1a0'],
  ['sendgrid key, no name', 'sg.setApiKey("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")', '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'],
  ['azure storage connection string', 'AZURE_STORAGE_CONNECTION_STRING="DefaultEndpointsProtocol=https;AccountName=acmeprod;AccountKey=Qm9vYmFyQmF6UXV4Rm9vYmFyQmF6UXV4Rm9vYmFyQmF6UXV4Rm9vYmFyQmF6UXV4Rm9vYmFyQmF6UXV4Rm9vYmFyQmF6UXV4QQ==;EndpointSuffix=core.windows.net"', 'Qm9vYmFyQmF6UXV4Rm9vYmFyQmF6UXV4Rm9vYmFyQmF6UXV4Rm9vYmFyQmF6UXV4Rm9vYmFyQmF6UXV4Rm9vYmFyQmF6UXV4QQ=='],
  ['azure storage key, no name', 'az storage account keys list → key1  pU3KGCUwux1tEyze1iN7LtkeP3IfyxlxF0SU1kk8nVw0YL4xIB5p/tqg7ui5mX9cfCmZ/a/lkyU81lSvTfrXFA== Full', 'pU3KGCUwux1tEyze1iN7LtkeP3IfyxlxF0SU1kk8nVw0YL4xIB5p/tqg7ui5mX9cfCmZ/a/lkyU81lSvTfrXFA=='],
  ['azure sas signature', 'https://acme.blob.core.windows.net/c/f.txt?sv=2022-11-02&ss=b&srt=o&sp=r&se=2027-01-01&sig=Xk3mP9qR2sT7vW4yZ8aBcDEf1Gh2Ij3Kl4Mn5Op6%3D', 'Xk3mP9qR2sT7vW4yZ8aBcDEf1Gh2Ij3Kl4Mn5Op6%3D'],
  ['url password with user', 'psql postgres://admin:Tr0ub4dor3@db.internal:5432/app', 'Tr0ub4dor3'],
  ['url password without user', 'REDIS_URL=redis://:correcthorsebattery@cache.internal:6379/0', 'correcthorsebattery'],
  ['url password containing @', 'mongodb://svc:p@ssw0rd!2026@mongo.internal/admin', 'p@ssw0rd!2026'],
  ['plain-word .env password', 'DB_PASSWORD=sunshine', 'sunshine'],
  ['short .env password', 'MYSQL_ROOT_PASSWORD=h4x', 'MYSQL_ROOT_PASSWORD=h4x'.slice(20)],
  ['.env secret key', 'SECRET_KEY=django-insecure-7q^x2!m9@p3#r8&v4', 'django-insecure-7q^x2!m9@p3#r8&v4'],
  ['yaml lowercase unquoted password', 'database:\n  user: app\n  password: meadowlark-42\n  host: db', 'meadowlark-42'],
  ['yaml lowercase plain-word password', 'smtp:\n  password: bluebird', 'bluebird'],
  ['kubectl secret data', 'apiVersion: v1\ndata:\n  password: c3VwZXJzZWNyZXQxMjM=\n  username: YWRtaW4=\nkind: Secret', 'c3VwZXJzZWNyZXQxMjM='],
  ['kubectl describe secret token', 'Data\n====\ntoken:      eyJhbGciOiJSUzI1NiIsImtpZCI6IjEifQ.eyJpc3MiOiJrdWJlcm5ldGVzIn0.Zm9vYmFyYmF6cXV4Zm9vYmFy', 'eyJhbGciOiJSUzI1NiIsImtpZCI6IjEifQ.eyJpc3MiOiJrdWJlcm5ldGVzIn0.Zm9vYmFyYmF6cXV4Zm9vYmFy'],
  ['json password field', '{"username":"deploy","password":"Sp4rkl3-Tr33"}', 'Sp4rkl3-Tr33'],
  ['python kwarg password', 'conn = psycopg2.connect(host="db", password="winter2026")', 'winter2026'],
  ['client secret camelCase', 'const clientSecret = "Qx7Lm2Np9Rt4Vw8Zb3Hc6Jf1";', 'Qx7Lm2Np9Rt4Vw8Zb3Hc6Jf1'],
  ['bearer header in curl', 'curl -H "Authorization: Bearer 7c1e9a2b4d6f8h0j2l4n6p8r0t2v4x6z" https://api.acme.io', '7c1e9a2b4d6f8h0j2l4n6p8r0t2v4x6z'],
  ['basic auth header', 'Authorization: Basic YWRtaW46c3VwZXJzZWNyZXRwYXNz', 'YWRtaW46c3VwZXJzZWNyZXRwYXNz'],
  ['npm token in .npmrc', '//registry.npmjs.org/:_authToken=npm_Xk3mP9qR2sT7vW4yZ8aBcDEf1Gh2Ij3Kl4Mn', 'npm_Xk3mP9qR2sT7vW4yZ8aBcDEf1Gh2Ij3Kl4Mn'],
  ['hugging face token', 'huggingface-cli login --token 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', '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'],
  ['pypi token', 'password = pypi-AgEIcHlwaS5vcmcCJDk3ZjFhM2Q0LWI1YzYtNGQ3ZS04ZjlhLTBiMWMyZDNlNGY1YQACKlsz', 'pypi-AgEIcHlwaS5vcmcCJDk3ZjFhM2Q0LWI1YzYtNGQ3ZS04ZjlhLTBiMWMyZDNlNGY1YQACKlsz'],
  ['digitalocean token', 'doctl auth init -t dop_v1_4f9a2c7e1b8d3f6a0c5e9b2d7f4a1c8e3b6d0f9a2c5e8b1d4f7a0c3e6b9d2f5a', 'dop_v1_4f9a2c7e1b8d3f6a0c5e9b2d7f4a1c8e3b6d0f9a2c5e8b1d4f7a0c3e6b9d2f5a'],
  ['private key block', '-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBkYq3mP9qR2sT7vW4yZ8aBcDEf1Gh2Ij3Kl4Mn5Op6oAoGCCqGSM49\n-----END EC PRIVATE KEY-----', 'MHcCAQEEIBkYq3mP9qR2sT7vW4yZ8aBcDEf1Gh2Ij3Kl4Mn5Op6oAoGCCqGSM49'],
  ['telegram bot token', 'BOT=123456789:AAHk3mP9qR2sT7vW4yZ8aBcDEf1Gh2Ij3Kl', '123456789:AAHk3mP9qR2sT7vW4yZ8aBcDEf1Gh2Ij3Kl'],
  ['discord webhook', 'POST https://discord.com/api/webhooks/123456789012345678/Xk3mP9qR2sT7vW4yZ8aBcDEf1Gh2Ij3Kl4Mn5Op6Qr7St8Uv9Wx0Yz1Ab2Cd3Ef4Gh5Ij6K', 'Xk3mP9qR2sT7vW4yZ8aBcDEf1Gh2Ij3Kl4Mn5Op6Qr7St8Uv9Wx0Yz1Ab2Cd3Ef4Gh5Ij6K'],
  ['mailgun key', 'MAILGUN=key-3ax6xnjp29jd6fds4gc373sgvjxteol0', 'key-3ax6xnjp29jd6fds4gc373sgvjxteol0'],
];

/** Look-alikes: a transcript is full of these, and none is a secret. */
export const CORPUS_LOOKALIKES: Array<[string, string]> = [
  ['git sha', 'HEAD is now at 3f9c2a7e1b8d4f6a0c5e9b2d7f4a1c8e3b6d0f9a fix: retry'],
  ['git log of shas', 'commit 9b1e4c7a2d5f8e0b3c6a9d2f5e8b1c4a7d0f3e6b\nAuthor: Dev <dev@acme.io>'],
  ['uuid', 'request id 7d3f1c9a-2b4e-4f6a-8c0e-1a3b5c7d9e2f failed'],
  ['base64 png', 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=='],
  ['npm integrity', '"integrity": "sha512-Xk3mP9qR2sT7vW4yZ8aBcDEf1Gh2Ij3Kl4Mn5Op6Qr7St8Uv9Wx0Yz1Ab2Cd3Ef4Gh5Ij6Kl7Mn8Op9Qr0St1Uv2Wx3Yz4A=="'],
  ['sha256 checksum', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  node-v20.tar.gz'],
  ['docker image digest', 'FROM node@sha256:4f2c9a1e7b3d8f6a0c5e9b2d7f4a1c8e3b6d0f9a2c5e8b1d4f7a0c3e6b9d2f5a'],
  ['env var reference', 'export DB_PASSWORD="$DB_PASSWORD_FROM_VAULT"; TOKEN=${CI_JOB_TOKEN}'],
  ['placeholder value', 'OPENAI_API_KEY=your-api-key-here\nPASSWORD=<your-password>'],
  ['config knobs named like secrets', 'TOKEN_LIMIT=100000\nPASSWORD_MIN_LENGTH=12\nSECRET_NAME=app-secrets'],
  ['prose about tokens', 'The prompt used 1534 tokens and the password field is required.'],
  ['url without password', 'see https://user@example.com/docs and postgres://db.internal:5432/app'],
  ['long camelCase identifier', 'const useLocalStorageSynchronizedStateHook = createPersistedReducerWithMigrations;'],
  ['file path', 'wrote /home/dev/projects/acme/src/components/AuthenticationProvider.tsx'],
];

function survives(secret: string, text: string): boolean {
  if (secret.length <= 12) return text.includes(secret);
  for (let i = 0; i + 12 <= secret.length; i++) if (text.includes(secret.slice(i, i + 12))) return true;
  return false;
}

describe('redaction corpus', () => {
  for (const [name, text, secret] of CORPUS_SECRETS) {
    it(`removes ${name}`, () => {
      const r = redactSecrets(text);
      expect(survives(secret, r.text), r.text).toBe(false);
      expect(r.text).toContain('[REDACTED:');
    });
  }
  for (const [name, text] of CORPUS_LOOKALIKES) {
    it(`keeps ${name}`, () => {
      expect(redactSecrets(text).text).toBe(text);
    });
  }
  it('is idempotent on its own output', () => {
    for (const [, text] of CORPUS_SECRETS) {
      const once = redactSecrets(text).text;
      expect(redactSecrets(once).text).toBe(once);
    }
  });
});
