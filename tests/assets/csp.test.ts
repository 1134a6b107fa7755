/**
 * The Content-Security-Policy is defined once (vite.config.ts): a judge
 * endpoint named in SQL_VERDICT_JUDGE_ORIGINS goes into connect-src, a value
 * that is not an origin fails the build, and the built _headers carries the
 * same policy as the page's <meta> tag.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { CONTENT_SECURITY_POLICY, contentSecurityPolicyFor, judgeOrigins } from '../../vite.config.ts';
import { repoRoot } from '../helpers/paths.ts';

describe('one Content-Security-Policy', () => {
  test('judge origins from SQL_VERDICT_JUDGE_ORIGINS go into connect-src, and nowhere else', () => {
    const origins = judgeOrigins('https://api.openai.com  https://llm.internal.example:8443/');
    expect(origins).toEqual(['https://api.openai.com', 'https://llm.internal.example:8443']);
    const policy = contentSecurityPolicyFor(origins);
    expect(policy).toContain("connect-src 'self' https://api.openai.com https://llm.internal.example:8443;");
    expect(policy.replace(/connect-src [^;]+/, '')).toBe(contentSecurityPolicyFor([]).replace(/connect-src [^;]+/, ''));
    expect(judgeOrigins('')).toEqual([]);
  });

  test('a value that is not an origin is refused with its text', () => {
    expect(() => judgeOrigins('https://api.openai.com/v1')).toThrow(
      /"https:\/\/api\.openai\.com\/v1" is not an origin/,
    );
    expect(() => judgeOrigins('api.openai.com')).toThrow(/is not an origin/);
    expect(() => judgeOrigins("https://x.example 'unsafe-inline'")).toThrow(/'unsafe-inline'/);
  });

  test.skipIf(!existsSync(path.join(repoRoot, 'dist/index.html')))(
    'the build writes _headers and the <meta> tag from the same policy (skipped without dist/: npm run build)',
    () => {
      const headers = readFileSync(path.join(repoRoot, 'dist/_headers'), 'utf8');
      const html = readFileSync(path.join(repoRoot, 'dist/index.html'), 'utf8');
      expect(headers).toContain(`Content-Security-Policy: ${CONTENT_SECURITY_POLICY}`);
      expect(html).toContain(`content="${CONTENT_SECURITY_POLICY.replace(/'/g, '&#39;')}"`);
      expect(existsSync(path.join(repoRoot, 'public/_headers'))).toBe(false);
    },
  );
});
