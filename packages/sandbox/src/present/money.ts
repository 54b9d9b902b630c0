import {
  type CurrencyFormat,
  formatMilliunits,
  toCurrencyAmount,
} from '@plans-gateway/rest-contract';

/** The `_formatted` / `_currency` companions of one amount. */
export interface MoneyCompanions {
  formatted: string;
  currency: number;
}

export type MoneyPresenter = (milliunits: number) => MoneyCompanions;

/** Binds the plan's currency format once, so presenters can format many amounts cheaply. */
export function createMoneyPresenter(format: CurrencyFormat | null): MoneyPresenter {
  return (milliunits) => ({
    formatted: formatMilliunits(milliunits, format),
    currency: toCurrencyAmount(milliunits, format),
  });
}
