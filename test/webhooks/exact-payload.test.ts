/**
 * A webhook payload carries a sum past 2^53 (a bigint in the replica) as the JSON integer it is,
 * as REST sends it: never rounded, and never a failed delivery for a value JSON.stringify refuses.
 */
import { parseExactJson } from '@plans-gateway/rest-contract';
import { describe, expect, it } from 'vitest';
import { type FeedEvent, payloadFor } from '../../src/deliveries/payload.js';

describe('webhook payloads past 2^53', () => {
  it('write a bigint balance digit for digit', () => {
    const balance = 2n ** 60n + 1n;
    const event: FeedEvent = {
      planId: 'plan-1',
      origin: 'SYNC',
      serverKnowledge: 7,
      previousServerKnowledge: 6,
      writeServerKnowledge: null,
      continues: false,
      deleted: {},
      accounts: [{ id: 'account-1', balance, cleared_balance: balance, uncleared_balance: 0 }],
    };
    const body = payloadFor(event, ['ACCOUNTS'], 7, Date.UTC(2026, 10, 28));
    expect(body).toContain(`"balance":${balance},`);
    const parsed = parseExactJson(body!) as { data: { accounts: { balance: bigint }[] } };
    expect(parsed.data.accounts[0]!.balance).toBe(balance);
  });
});
