import {
  type CurrencyFormat,
  formatMilliunits,
  toCurrencyAmount,
} from '@plans-gateway/rest-contract';
import type { Exact } from '../core/exact.js';

/** The `_formatted` / `_currency` companions of one amount. */
export interface MoneyCompanions {
  formatted: string;
  currency: number;
}

/** Exact past 2^53: the formatted text shows every digit (the `_currency` double cannot). */
export type MoneyPresenter = (milliunits: Exact) => MoneyCompanions;

/** Binds the plan's currency format once, so presenters can format many amounts cheaply. */
export function createMoneyPresenter(format: CurrencyFormat | null): MoneyPresenter {
  return (milliunits) => ({
    formatted: formatMilliunits(milliunits, format),
    currency: toCurrencyAmount(milliunits, format),
  });
}
