/**
 * Values sealed by the code before both sealers shared `src/crypto/aead.ts` (the constants below
 * were written by that code, issue 30): Redis blobs, tags and lease values, the operator key's
 * `s1` values under the current and an older key, and tokens of the format before `s1`. Whatever
 * is on disk or in Redis today must open after the change, and what the new code seals must keep
 * the same layout.
 */
import { describe, expect, it } from 'vitest';
import { createTokenSeal, SealError, signed, verified } from '../../src/cluster/seal.js';
import { AeadOpenError, aeadOpen, aeadSeal } from '../../src/crypto/aead.js';
import { createSealer, keyIdOf, SealBrokenError } from '../../src/crypto/sealer.js';
import { openSealedStore } from '../../src/webhooks/sealed-store.js';
import type { ClearRows, WebhookRecords } from '../../src/webhooks/store.js';

const TOKEN = 'sealed-before-token-0001';
const TOKEN_KEY = 'tk-sealed-before';
/** `{"knowledge":12,"memo":"Corner Shop"}`, sealed as it is (under 1 KiB). */
const SMALL_BLOB =
  'AQALIVbB/flV7CYUqTW0PCPhBMOOgws++bryW2hlZ8whN8ykgg/jmjm9JceSPurTuPNHYmOsxMq3kv/Fn4EBroSlRg==';
/** 100 rows of `{ id, memo: 'Corner Shop' }`: compressed with brotli, then sealed. */
const LARGE_BLOB =
  'AQFD9iSQceYDsOQ/0A6/lK2qtk4uE3IBxhbbkVzbBxGFS48oyd/dXl1ZrlFCF4mfeW3iAzIXScTrJk+ITtHHYcQOYgxcR/MXfXrMXnVacMLbIaAmQgax4+kYm3GclgFfWmbtnPmD+Kvn++S86gi6Sk2lcpnV9v735hbRK+A9JBV8YckNLlqyx5eX527xKwsQGeJZHv7Wp0uoIYg/858r+Y2M089CDi9c4oDoQoE7Kc7UiXEsPdSIb7aVrV0cwmmKGIjBPYTWQc8U';
const SIGNED_LEASE = 'instance.3 1750000000000 znxrrS3oaC_dcc6XPzBhcA';

const KEY = Buffer.alloc(32, 7);
const OLDER_KEY = Buffer.alloc(32, 9);
const SEALED_SECRET = 's1.Sxv1huD3.kC2AR5L4Jkkx2k4Z.AIPsQozd8BuJiGpkO0FZuCPtfDcN4vTx4gk6ag';
const SEALED_UNDER_OLDER_KEY =
  's1.7cxSFs9R.NJp5CjUAB2cYoDWh.hywXanK0qbNwg1i8oQPv_bBJY3rGlGyag7PVst9982Ks8f5XJGU7aOp1zNE0j_t_';
const FEED_DIGEST = '-u7MHzEZmTD5hHf-10T6PQ';
/** A token of the format before `s1`: `v1.<iv>.<tag>.<ciphertext>` under the raw key. */
const LEGACY_TOKEN = 'v1.CKV2SXxZehhzcMrJ.rcJyv_8JupCZKGnw4uxcbw.ruuKuEnBZkdp4YR-wfJx7m8d';

describe('values sealed before the shared AEAD helper', () => {
  it('Redis blobs, tags and leases of a token still open and verify', async () => {
    const seal = createTokenSeal(TOKEN, TOKEN_KEY);
    const small = await seal.open(Buffer.from(SMALL_BLOB, 'base64'), 'pgw:s:before');
    expect(JSON.parse(small.toString('utf8'))).toEqual({ knowledge: 12, memo: 'Corner Shop' });
    const large = await seal.open(Buffer.from(LARGE_BLOB, 'base64'), 'pgw:s:before');
    const rows = (JSON.parse(large.toString('utf8')) as { rows: unknown[] }).rows;
    expect(rows).toHaveLength(100);
    expect(rows[99]).toEqual({ id: 99, memo: 'Corner Shop' });
    expect(verified(seal, SIGNED_LEASE, 'pgw:o:before')).toBe('instance.3 1750000000000');
    expect(signed(seal, 'instance.3 1750000000000', 'pgw:o:before')).toBe(SIGNED_LEASE);
    await expect(
      seal.open(Buffer.from(SMALL_BLOB, 'base64'), 'pgw:s:elsewhere'),
    ).rejects.toBeInstanceOf(SealError);
    // Same layout as before: version, flags, IV, ciphertext, tag.
    const fresh = await seal.seal(Buffer.from('x'), 'pgw:s:before');
    expect([fresh[0], fresh[1], fresh.length]).toEqual([1, 0, 2 + 12 + 1 + 16]);
  });

  it("the operator key's values open, under the current key and an older one", () => {
    const sealer = createSealer(KEY, [OLDER_KEY]);
    expect(sealer.keyId).toBe('Sxv1huD3');
    expect(sealer.open(SEALED_SECRET, 'secret:ep-1')).toBe('whsec_before');
    expect(keyIdOf(SEALED_UNDER_OLDER_KEY)).toBe('7cxSFs9R');
    expect(sealer.open(SEALED_UNDER_OLDER_KEY, 'endpoint:ep-1')).toBe(
      'https://hooks.example.com/before',
    );
    expect(sealer.digest('feed', 'tk', 'plan-1')).toBe(FEED_DIGEST);
    expect(() => sealer.open(SEALED_SECRET, 'secret:ep-2')).toThrow(SealBrokenError);
    expect(createSealer(KEY).seal('a', 'c')).toMatch(/^s1\.Sxv1huD3\.[\w-]{16}\.[\w-]{23}$/);
  });

  it('a token of the format before s1 is sealed anew when the store opens, and opens', async () => {
    // The part of a backend the start reads: a store of the version before s1, with that token.
    let kept = LEGACY_TOKEN;
    let canary: string | undefined;
    const records = {
      where: 'memory',
      canary: async () => canary,
      setCanary: async (sealed: string) => {
        canary = sealed;
      },
      sealClearRows: async (rows: ClearRows) => {
        kept = rows.token(TOKEN_KEY, kept);
      },
      anyToken: async () => ({ tokenKey: TOKEN_KEY, sealed: kept }),
      token: async () => kept,
    } as unknown as WebhookRecords;
    const store = await openSealedStore(records, KEY);
    expect(kept).toMatch(/^s1\.Sxv1huD3\./);
    expect(await store.token(TOKEN_KEY)).toBe('legacy-token-value');
    expect(canary).toMatch(/^s1\./);
  });

  it('the helper refuses other associated data, another key and altered bytes', () => {
    const parts = aeadSeal(KEY, 'plain', 'row:1');
    expect(aeadOpen(KEY, parts, 'row:1').toString('utf8')).toBe('plain');
    expect(() => aeadOpen(KEY, parts, 'row:2')).toThrow(AeadOpenError);
    expect(() => aeadOpen(OLDER_KEY, parts, 'row:1')).toThrow(AeadOpenError);
    const altered = { ...parts, ciphertext: Buffer.from(parts.ciphertext).fill(0) };
    expect(() => aeadOpen(KEY, altered, 'row:1')).toThrow(AeadOpenError);
  });
});
