/**
 * What a handler receives and the helpers every handler shares: plan and month resolution
 * (aliases included), path id parsing, body access and the write wrapper.
 */
import type { IsoDate, OperationId, ResponseData } from '@plans-gateway/rest-contract';
import type { Principal } from '../core/api.js';
import { calendarDateOf, monthOf } from '../core/dates.js';
import { badRequest, resourceNotFound } from '../core/errors.js';
import type { Exactly } from '../core/exact.js';
import type { Streamable } from '../present/lazy-list.js';
import { createMoneyPresenter, type MoneyPresenter } from '../present/money.js';
import { ensureMonth } from '../store/budget.js';
import type { PlanStore } from '../store/plan-store.js';
import type { MonthRecord } from '../store/records.js';
import type { PlanEntry, SandboxState, UserState } from '../store/state.js';
import { DATE_FORMAT_RULE, isUuid, readObject } from '../validate/fields.js';
import type { Query } from '../validate/query.js';
import { enterDueScheduled, hasDueScheduled } from './scheduled-due.js';

export interface HandlerContext {
  readonly operationId: OperationId;
  readonly params: Readonly<Record<string, string>>;
  readonly query: Query;
  /** Parsed JSON body; `undefined` when the request had none. */
  readonly body: unknown;
  readonly principal: Principal;
  readonly user: UserState;
  readonly state: SandboxState;
  readonly now: number;
  readonly today: IsoDate;
  /** An injected `silent` fault: the write leaves no trace for deltas (see PlanStore.change). */
  readonly silent: boolean;
}

export interface HandlerResult<Op extends OperationId> {
  status: 200 | 201;
  /**
   * The REST `data`; a list that can grow to hundreds of MB is a `LazyList`, written as it
   * streams. Sums may be bigints past 2^53 (core/exact.ts), written as the integers they are.
   */
  data: Streamable<Exactly<ResponseData[Op]>>;
}

export type Handler<Op extends OperationId> = (ctx: HandlerContext) => HandlerResult<Op>;
export type HandlerTable = { [Op in OperationId]: Handler<Op> };

export const ok = <Op extends OperationId>(
  data: Streamable<Exactly<ResponseData[Op]>>,
): HandlerResult<Op> => ({ status: 200, data });
export const created = <Op extends OperationId>(
  data: Streamable<Exactly<ResponseData[Op]>>,
): HandlerResult<Op> => ({ status: 201, data });

/** A path id that must be a UUID; lower-cased. */
export function idParam(ctx: HandlerContext, name: string): string {
  const raw = ctx.params[name] ?? '';
  if (!isUuid(raw)) throw badRequest(`${name} must be a UUID, got '${raw}'`);
  return raw.toLowerCase();
}

/** Private: which plan `default` means for this token, or a 404 saying why there is none. */
function defaultPlanOf(ctx: HandlerContext): string {
  const { principal, user } = ctx;
  if (principal.oauth) {
    if (!principal.oauth.defaultPlanSelection) {
      throw resourceNotFound(
        "The 'default' plan alias needs default plan selection, which this OAuth application does not have",
      );
    }
    const chosen = principal.oauth.defaultPlanId ?? user.defaultPlanId;
    if (chosen === null)
      throw resourceNotFound('No default plan was selected when this token was authorized');
    return chosen;
  }
  if (user.defaultPlanId === null) throw resourceNotFound('The user has no default plan');
  return user.defaultPlanId;
}

/**
 * Resolves `plan_id` (a UUID, `last-used` or `default`) to one of the user's plans, brings the
 * plan up to the clock (current month, scheduled transactions coming due), and records the plan
 * as the user's last used one.
 */
export function usePlan(ctx: HandlerContext): PlanEntry {
  const raw = ctx.params.plan_id ?? '';
  let planId: string;
  if (raw === 'last-used') {
    if (ctx.user.lastUsedPlanId === null)
      throw resourceNotFound('The user has not used any plan yet');
    planId = ctx.user.lastUsedPlanId;
  } else if (raw === 'default') {
    planId = defaultPlanOf(ctx);
  } else if (isUuid(raw)) {
    planId = raw.toLowerCase();
  } else {
    throw badRequest(`plan_id must be a UUID, 'last-used' or 'default', got '${raw}'`);
  }
  const entry = ctx.user.planIds.includes(planId) ? ctx.state.plans.get(planId) : undefined;
  if (!entry) throw resourceNotFound(`Plan '${planId}' was not found`);
  followClock(entry, ctx.today, ctx.now);
  ctx.user.lastUsedPlanId = planId;
  return entry;
}

/**
 * Brings a plan up to the request's clock before anything reads or writes it, as one change (no
 * knowledge advance when nothing is due). When the clock enters a new month, the plan gains that
 * month and every category's "current" amounts change, so categories are touched and delta
 * requests carry the new values. Scheduled occurrences dated today or earlier are entered and
 * their `date_next` moves on (handlers/scheduled-due.ts). Nothing runs on timers: an idle plan
 * catches up on its next request.
 */
export function followClock(entry: PlanEntry, today: IsoDate, now: number): void {
  const { store, newId } = entry;
  const month = monthOf(today);
  const monthMoved = month !== store.currentMonth;
  if (!monthMoved && !hasDueScheduled(store, today)) return;
  store.change(now, () => {
    if (monthMoved) {
      ensureMonth(store, month);
      store.currentMonth = month;
      for (const category of store.categories.values()) store.touch(category);
    }
    enterDueScheduled(store, newId, today);
  });
}

/** The `month` path parameter (a date or `current`) as a month key, not yet looked up. */
export function monthParam(ctx: HandlerContext, store: PlanStore): IsoDate {
  const raw = ctx.params.month ?? '';
  if (raw === 'current') return store.currentMonth;
  const date = calendarDateOf(raw);
  if (date === null)
    throw badRequest(`month must be ${DATE_FORMAT_RULE} or 'current', got '${raw}'`);
  return monthOf(date);
}

/** The plan month named by the `month` path parameter; 404 outside the plan's months. */
export function useMonth(ctx: HandlerContext, store: PlanStore): MonthRecord {
  const month = monthParam(ctx, store);
  const record = store.monthsByKey.get(month);
  if (!record || record.deleted) {
    throw resourceNotFound(
      `Month ${month} was not found; the plan covers ${store.firstMonth} to ${store.lastMonth}`,
    );
  }
  return record;
}

/** The object under `key` in the request body (`{ "account": { ... } }`). */
export function bodyObject(ctx: HandlerContext, key: string): Record<string, unknown> {
  if (ctx.body === undefined)
    throw badRequest(`The request body is required and must hold '${key}'`);
  const body = readObject(ctx.body, 'request body');
  if (body[key] === undefined) throw badRequest(`${key} is required`);
  return readObject(body[key], key);
}

export function moneyOf(store: PlanStore): MoneyPresenter {
  return createMoneyPresenter(store.currencyFormat);
}

/**
 * Runs a write as one change of the plan (one new server knowledge value), or, under a `silent`
 * fault, as a change no delta will carry.
 */
export function write<T>(ctx: HandlerContext, entry: PlanEntry, mutate: () => T): T {
  return entry.store.change(ctx.now, mutate, { silent: ctx.silent });
}

/** Delta filter: everything live on a full request, everything changed after `since` on a delta. */
export function inDelta(
  record: { knowledge: number; deleted: boolean },
  since: number | null,
): boolean {
  return since === null ? !record.deleted : record.knowledge > since;
}
