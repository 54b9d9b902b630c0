/**
 * Names for ids: the matching rules (exact, then ignoring case, then a prefix; several at one
 * rule refused with the candidates), which arguments take names, and resolving the names of a
 * whole set of arguments (nested ones included) at once, each refusal named by its path.
 */
import { describe, expect, it } from 'vitest';
import { ArgumentError, argumentErrors } from '../../src/mcp/money.js';
import { match, nameableKind, type PlanNames, resolveNames } from '../../src/mcp/names.js';

const ID = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

const NAMES: PlanNames = {
  account: [
    { id: ID(1), name: 'Everyday Checking' },
    { id: ID(2), name: 'Rainy Day Savings' },
  ],
  category: [
    { id: ID(10), name: 'Groceries', where: 'Everyday' },
    { id: ID(11), name: 'groceries', where: 'Old' },
    { id: ID(12), name: 'Gas', where: 'Transport' },
    { id: ID(13), name: 'Gifts', where: 'Occasions' },
    { id: ID(14), name: 'Dining Out', where: 'Everyday' },
  ],
  payee: [
    { id: ID(20), name: 'Transfer : Rainy Day Savings' },
    { id: ID(20), name: 'Rainy Day Savings', where: 'transfer to or from Rainy Day Savings' },
    { id: ID(21), name: 'Corner Grocer' },
  ],
};

describe('match', () => {
  it('takes an exact name first, even when another differs only by case', () => {
    expect(match('Groceries', NAMES.category, 'category', 'categoryId').id).toBe(ID(10));
    expect(match('groceries', NAMES.category, 'category', 'categoryId').id).toBe(ID(11));
  });

  it('then a name ignoring case, then the start of one', () => {
    expect(match('dining out', NAMES.category, 'category', 'categoryId').id).toBe(ID(14));
    expect(match('din', NAMES.category, 'category', 'categoryId').id).toBe(ID(14));
    expect(match('  everyday ', NAMES.account, 'account', 'accountId').id).toBe(ID(1));
  });

  it('finds a transfer payee by its account name, once', () => {
    expect(match('rainy', NAMES.payee, 'payee', 'payeeId').id).toBe(ID(20));
  });

  it('refuses an ambiguous name, listing the candidates with where they are', () => {
    expect(() => match('GROCERIES', NAMES.category, 'category', 'categoryId')).toThrow(
      'Argument "categoryId": "GROCERIES" could be any of 2 categories: "Groceries" (Everyday), "groceries" (Old). Give the full name or the id.',
    );
    expect(() => match('g', NAMES.category, 'category', 'categoryId')).toThrow(
      /could be any of 4 categories/,
    );
  });

  it('refuses an unknown name, naming some that exist', () => {
    expect(() => match('Rent', NAMES.category, 'category', 'x')).toThrow(
      /^Argument "x": no category is named "Rent" \(nor starts so\)\. Categories include: "Groceries" \(Everyday\)/,
    );
  });
});

describe('nameableKind', () => {
  it('knows the arguments that take an account, category or payee id', () => {
    expect(
      ['accountId', 'categoryId', 'payeeId', 'fromCategoryId', 'toCategoryId'].map(nameableKind),
    ).toEqual(['account', 'category', 'payee', 'category', 'category']);
    expect(nameableKind('transferAccountId')).toBeUndefined();
    expect(nameableKind('transactionId')).toBeUndefined();
    expect(nameableKind('planId')).toBeUndefined();
  });
});

describe('resolveNames', () => {
  it('replaces names by ids at any depth, leaves ids alone, and says what each matched', () => {
    const { args, matched, errors } = resolveNames(
      {
        accountId: 'everyday',
        payeeId: ID(21),
        subtransactions: [{ categoryId: 'gas', amount: -1 }, { categoryId: 'Gifts' }],
      },
      NAMES,
    );
    expect(errors).toEqual([]);
    expect(args).toEqual({
      accountId: ID(1),
      payeeId: ID(21),
      subtransactions: [{ categoryId: ID(12), amount: -1 }, { categoryId: ID(13) }],
    });
    expect(matched).toEqual([
      {
        argument: 'accountId',
        given: 'everyday',
        kind: 'account',
        id: ID(1),
        name: 'Everyday Checking',
      },
      {
        argument: 'subtransactions[0].categoryId',
        given: 'gas',
        kind: 'category',
        id: ID(12),
        name: 'Gas',
      },
      {
        argument: 'subtransactions[1].categoryId',
        given: 'Gifts',
        kind: 'category',
        id: ID(13),
        name: 'Gifts',
      },
    ]);
  });

  it('refuses every name that is not one thing, each by its path, all at once', () => {
    const { errors } = resolveNames(
      { accountId: 'Nowhere', transactions: [{ id: 'x', categoryId: 'G' }] },
      NAMES,
    );
    expect(errors.map((e) => e.argument)).toEqual(['accountId', 'transactions[0].categoryId']);
    const all = argumentErrors(errors);
    expect(all).toBeInstanceOf(ArgumentError);
    expect(all.all).toHaveLength(2);
    expect(all.message).toMatch(/^2 arguments are invalid/);
  });
});
