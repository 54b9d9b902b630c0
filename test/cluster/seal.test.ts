import { describe, expect, it } from 'vitest';
import { judgeLease, leaseValue } from '../../src/cluster/redis-leases.js';
import {
  createTokenSeal,
  openJson,
  redisName,
  SealError,
  sealJson,
  signed,
  TokenSeals,
  verified,
} from '../../src/cluster/seal.js';
import { tokenKey } from '../../src/upstream/token-key.js';

const TOKEN = 'seal-test-token-0123456789';
const seal = createTokenSeal(TOKEN, tokenKey(TOKEN));
const plan = Buffer.from(JSON.stringify({ payee: 'Corner Shop', memo: 'x'.repeat(5_000) }));

describe('token seals', () => {
  it('open what they sealed, small or compressed, and nothing shows through', async () => {
    for (const body of [Buffer.from('{"a":1}'), plan]) {
      const sealed = await seal.seal(body, 'pgw:s:name');
      expect(sealed.includes(Buffer.from('Corner Shop'))).toBe(false);
      expect(await seal.open(sealed, 'pgw:s:name')).toEqual(body);
    }
    // The large body is compressed before it is encrypted.
    expect((await seal.seal(plan, 'n')).length).toBeLessThan(plan.length / 4);
  });

  it('refuse another token, another name and any altered byte', async () => {
    const sealed = await seal.seal(plan, 'pgw:s:one');
    const other = createTokenSeal('another-token-0123456789', tokenKey('another-token-0123456789'));
    await expect(other.open(sealed, 'pgw:s:one')).rejects.toBeInstanceOf(SealError);
    await expect(seal.open(sealed, 'pgw:s:two')).rejects.toBeInstanceOf(SealError);
    const altered = Buffer.from(sealed);
    altered[20] = (altered[20] ?? 0) ^ 1;
    await expect(seal.open(altered, 'pgw:s:one')).rejects.toBeInstanceOf(SealError);
    await expect(seal.open(Buffer.from('plain'), 'pgw:s:one')).rejects.toBeInstanceOf(SealError);
  });

  it('sign what scripts read in clear, for one token and one name only', () => {
    const value = signed(seal, 'instance.7.1750000000000', 'pgw:l:calls');
    expect(value).toMatch(/^instance\.7\.1750000000000 [\w-]{22}$/);
    expect(verified(seal, value, 'pgw:l:calls')).toBe('instance.7.1750000000000');
    const other = createTokenSeal('another-token-0123456789', tokenKey('another-token-0123456789'));
    for (const [by, text, name] of [
      [other, value, 'pgw:l:calls'],
      [seal, value, 'pgw:l:polls'],
      [seal, value.replace('.7.', '.8.'), 'pgw:l:calls'],
      [seal, 'instance.7.1750000000000 AAAAAAAAAAAAAAAAAAAAAA', 'pgw:l:calls'],
      [seal, 'no-tag-at-all', 'pgw:l:calls'],
    ] as const) {
      expect(verified(by, text, name)).toBeUndefined();
    }
  });

  it('judge a lease: held until its own end, void when forged or written again after it', () => {
    const key = 'pgw:o:lease';
    const now = 1_750_000_000_000;
    const value = leaseValue(seal, key, 'instance.3', now + 5_000);
    expect(judgeLease(seal, key, value, now)).toEqual({
      kind: 'held',
      owner: 'instance.3',
      until: now + 5_000,
      progress: 0,
    });
    // Clocks may differ a little; a lease a second past its end is still someone's.
    expect(judgeLease(seal, key, value, now + 5_500).kind).toBe('held');
    // The same value set again later, with whatever TTL, holds nothing.
    expect(judgeLease(seal, key, value, now + 60_000)).toEqual({ kind: 'expired' });
    expect(judgeLease(seal, 'pgw:o:another', value, now)).toEqual({ kind: 'forged' });
    expect(judgeLease(seal, key, 'instance.3 99999999999999 AAAA', now)).toEqual({
      kind: 'forged',
    });
  });

  it("sign a flight lease's progress marker with the rest of it", () => {
    const key = 'pgw:f:lease';
    const now = 1_750_000_000_000;
    const value = leaseValue(seal, key, 'instance.3', now + 5_000, 7);
    expect(judgeLease(seal, key, value, now)).toMatchObject({ kind: 'held', progress: 7 });
    // A marker moved by someone without the key is no progress: the lease binds nobody.
    const moved = value.replace(' 7 ', ' 8 ');
    expect(moved).not.toBe(value);
    expect(judgeLease(seal, key, moved, now)).toEqual({ kind: 'forged' });
  });

  it('name keys by digests that show neither token nor plan id', () => {
    const planId = '5b3e7d6a-0000-4000-8000-000000000001';
    const name = redisName('replica', tokenKey(TOKEN), planId);
    expect(name).toMatch(/^[\w-]{22}$/);
    expect(name).toBe(redisName('replica', tokenKey(TOKEN), planId));
    expect(name).not.toBe(redisName('replica', tokenKey(TOKEN), `${planId}x`));
    expect(name).not.toBe(redisName('replica', tokenKey('another'), planId));
  });

  it('are remembered per token key, and replaced when the token behind a key differs', () => {
    const seals = new TokenSeals(2);
    const first = seals.remember(TOKEN, tokenKey(TOKEN));
    expect(seals.remember(TOKEN, tokenKey(TOKEN))).toBe(first);
    expect(seals.get(tokenKey(TOKEN))).toBe(first);
    expect(seals.tokenOf(tokenKey(TOKEN))).toBe(TOKEN);
    seals.remember('b-token', tokenKey('b-token'));
    seals.remember('c-token', tokenKey('c-token'));
    expect(seals.get(tokenKey(TOKEN))).toBeUndefined();
  });
});

describe('sealed JSON past 2^53', () => {
  it('opens a relayed balance past 2^53 as the bigint it was sealed as', async () => {
    const value = { data: { plan: { accounts: [{ id: 'a', balance: 2n ** 62n + 3n }] } } };
    const opened = await openJson(seal, await sealJson(seal, value, 'pgw:s:big'), 'pgw:s:big');
    expect(opened).toEqual(value);
  });
});
