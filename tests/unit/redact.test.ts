/** Secret redaction: every provider shape is replaced by a typed placeholder; look-alikes survive. */
import { describe, expect, it } from 'vitest';
import { redactSecrets } from '../../src/core/redact.js';

const POSITIVES: Array<[string, string, string]> = [
  ['openai project key', 'key is sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7cD0eF', 'openai-api-key'],
  ['openai legacy key', 'OPENAI=sk-' + 'a1B2c3D4e5F6g7H8i9J0' + 'T3BlbkFJ' + 'k1L2m3N4o5P6q7R8s9T0', 'openai-api-key'],
  ['anthropic key', 'export X=sk-ant-api03-' + 'Ab1_Cd2-Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv1Wx2Yz3Ab4Cd5Ef6Gh7Ij8Kl9Mn0Op1Qr2St3Uv4Wx5Yz6AbCdEf-AAAA', 'anthropic-api-key'],
  ['aws access key', 'aws configure set aws_access_key_id AKIAIOSFODNN7EXAMPLE', 'aws-access-key'],
  ['aws secret', 'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'aws-secret-key'],
  ['github pat', 'token ghp_1234567890abcdefghijABCDEFGHIJ123456 ok', 'github-token'],
  ['github fine-grained', 'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEF', 'github-token'],
  ['gitlab', 'GL=glpat-xYz12345678901234567', 'gitlab-token'],
  ['slack bot', 'xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx', 'slack-token'],
  ['slack webhook', 'curl https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX', 'slack-webhook'],
  ['stripe', 'stripe.api_key = "sk_live_4eC39HqLyjWDarjtT1zdp7dc"', 'stripe-key'],
  ['google api key', 'key=AIzaSyA1bcdEfGhIjKlMnOpQrStUvWxYz012345', 'google-api-key'],
  ['azure storage', 'DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6cXV4==;EndpointSuffix=core.windows.net', 'azure-connection-string'],
  ['jwt', 'Authorization: eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U', 'jwt'],
  ['private key', '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\nabc\n-----END RSA PRIVATE KEY-----', 'private-key'],
  ['openssh private key', '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----', 'private-key'],
  ['url password', 'DATABASE_URL=postgres://admin:S3cr3tPa55@db.example.com:5432/app', 'url-password'],
  ['env secret', 'DB_PASSWORD=hunter2Xy9!', 'env-secret'],
  ['env token in yaml', 'api_token: "Zx81LmQ0pR7sT2vW"', 'env-secret'],
  ['bearer', 'curl -H "Authorization: Bearer abcdef0123456789abcdef0123456789"', 'bearer-token'],
  ['npm token', '//registry.npmjs.org/:_authToken=npm_abcdefghijklmnopqrstuvwxyz0123456789', 'npm-token'],
];

const NEGATIVES: Array<[string, string]> = [
  ['prose with sk-', 'the task-list and disk-usage ask-me flags'],
  ['short sk', 'sk-test'],
  ['publishable stripe key', 'pk_test_TYooMQauvdEDq54NiTphI7jx'],
  ['aws example-shaped word', 'AKIA is the prefix of AWS access key ids'],
  ['env reference', 'API_KEY=$OPENAI_API_KEY and TOKEN=${GITHUB_TOKEN}'],
  ['env numbers and words', 'TOKEN_LIMIT=100000 PASSWORD_MIN_LENGTH=12 SECRET_NAME=changeme'],
  ['process.env', 'const key = process.env.ANTHROPIC_API_KEY;'],
  ['url without password', 'https://user@example.com/path and https://example.com:8080/x'],
  ['git sha', 'commit 0b77c3e9d2f14a6b8c0e2d4f6a8b0c2e4f6a8b0c'],
  ['uuid', 'session 5f0c2b7e-8d4a-4f61-9b3e-2a7c91d4e860'],
  ['base64 prose', 'eyJ is how base64 JSON starts'],
  ['public key', '-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkq\n-----END PUBLIC KEY-----'],
  ['placeholder', 'OPENAI_API_KEY=your-api-key-here'],
  ['code with key names', 'const opts = { key: someVariable, token: tok, password: userPassword };'],
];

describe('redactSecrets', () => {
  for (const [name, text, kind] of POSITIVES) {
    it(`redacts ${name}`, () => {
      const r = redactSecrets(text);
      expect(r.count, r.text).toBeGreaterThanOrEqual(1);
      expect(r.kinds).toContain(kind);
      expect(r.text).toContain(`[REDACTED:${kind}]`);
    });
  }
  for (const [name, text] of NEGATIVES) {
    it(`leaves ${name} alone`, () => {
      const r = redactSecrets(text);
      expect(r.text).toBe(text);
      expect(r.count).toBe(0);
    });
  }
  it('keeps the context around a secret and is idempotent', () => {
    const r = redactSecrets('DATABASE_URL=postgres://admin:S3cr3tPa55@db.example.com/app');
    expect(r.text).toBe('DATABASE_URL=postgres://admin:[REDACTED:url-password]@db.example.com/app');
    expect(redactSecrets(r.text)).toEqual({ text: r.text, count: 0, kinds: [] });
  });
  it('redacts several secrets of different kinds in one text', () => {
    const r = redactSecrets('a AKIAIOSFODNN7EXAMPLE b ghp_1234567890abcdefghijABCDEFGHIJ123456 c');
    expect(r.count).toBe(2);
    expect(r.text).toBe('a [REDACTED:aws-access-key] b [REDACTED:github-token] c');
  });
});

describe('a rule that names its secret by a group', () => {
  it('replaces only the secret: the text between the groups (`=`, a webhook URL) stays', () => {
    expect(redactSecrets('AccountName=acme;AccountKey=Qm9vYmFyQmF6UXV4Rm9vYmFyQmF6UXV4Rm9vYmFy;EndpointSuffix=core.windows.net').text).toBe(
      'AccountName=acme;AccountKey=[REDACTED:azure-connection-string];EndpointSuffix=core.windows.net',
    );
    expect(redactSecrets('POST https://discord.com/api/webhooks/123456789012345678/Xk3mP9qR2sT7vW4yZ8aBcDEf1Gh2Ij3Kl4Mn5Op6Qr7St8Uv9Wx0Yz1Ab2Cd3Ef4Gh5Ij6K now').text).toBe(
      'POST https://discord.com/api/webhooks/123456789012345678/[REDACTED:discord-webhook] now',
    );
  });

  it('a case-insensitive rule runs on its own match, whatever else the text holds', () => {
    const header = 'AUTHORIZATION: BASIC YWRtaW46c3VwZXJzZWNyZXRwYXNz';
    expect(redactSecrets(header).text).toBe('AUTHORIZATION: BASIC [REDACTED:basic-auth]');
    expect(redactSecrets(`${header} (see basic auth)`).text).toBe('AUTHORIZATION: BASIC [REDACTED:basic-auth] (see basic auth)');
    expect(redactSecrets('ACCOUNTKEY=Qm9vYmFyQmF6UXV4Rm9vYmFyQmF6UXV4;').text).toBe('ACCOUNTKEY=[REDACTED:azure-connection-string];');
    expect(redactSecrets('PASSWORD=<your-password> and password=${DB_PASSWORD}').text).toBe('PASSWORD=<your-password> and password=${DB_PASSWORD}');
  });
});
