/** Plan months and money movements. */
import {
  presentMoneyMovement,
  presentMoneyMovementGroup,
  presentMonthDetail,
  presentMonthSummary,
} from '../present/entities.js';
import { readKnowledgeParam } from '../validate/query.js';
import { type Handler, moneyOf, ok, useMonth, usePlan } from './context.js';

const getPlanMonths: Handler<'getPlanMonths'> = (ctx) => {
  const since = readKnowledgeParam(ctx.query);
  const { store } = usePlan(ctx);
  const money = moneyOf(store);
  const months = store.months
    .filter((month) => (since === null ? !month.deleted : month.knowledge > since))
    .map((month) => presentMonthSummary(month, money));
  return ok({ months, server_knowledge: store.knowledge });
};

const getPlanMonth: Handler<'getPlanMonth'> = (ctx) => {
  const { store } = usePlan(ctx);
  return ok({ month: presentMonthDetail(store, useMonth(ctx, store), moneyOf(store)) });
};

/**
 * The money movement lists have no delta parameter in the interface; the sandbox still honours
 * `last_knowledge_of_server` on them (movements are never deleted, so a delta is a plain filter).
 */
const getMoneyMovements: Handler<'getMoneyMovements'> = (ctx) => {
  const since = readKnowledgeParam(ctx.query) ?? 0;
  const { store } = usePlan(ctx);
  const money = moneyOf(store);
  const movements = store.moneyMovements
    .filter((m) => m.knowledge > since)
    .map((m) => presentMoneyMovement(m, money));
  return ok({ money_movements: movements, server_knowledge: store.knowledge });
};

const getMoneyMovementsByMonth: Handler<'getMoneyMovementsByMonth'> = (ctx) => {
  const since = readKnowledgeParam(ctx.query) ?? 0;
  const { store } = usePlan(ctx);
  const month = useMonth(ctx, store).month;
  const money = moneyOf(store);
  const movements = store.moneyMovements
    .filter((m) => m.month === month && m.knowledge > since)
    .map((m) => presentMoneyMovement(m, money));
  return ok({ money_movements: movements, server_knowledge: store.knowledge });
};

const getMoneyMovementGroups: Handler<'getMoneyMovementGroups'> = (ctx) => {
  const since = readKnowledgeParam(ctx.query) ?? 0;
  const { store } = usePlan(ctx);
  const groups = store.moneyMovementGroups
    .filter((g) => g.knowledge > since)
    .map(presentMoneyMovementGroup);
  return ok({ money_movement_groups: groups, server_knowledge: store.knowledge });
};

const getMoneyMovementGroupsByMonth: Handler<'getMoneyMovementGroupsByMonth'> = (ctx) => {
  const since = readKnowledgeParam(ctx.query) ?? 0;
  const { store } = usePlan(ctx);
  const month = useMonth(ctx, store).month;
  const groups = store.moneyMovementGroups
    .filter((g) => g.month === month && g.knowledge > since)
    .map(presentMoneyMovementGroup);
  return ok({ money_movement_groups: groups, server_knowledge: store.knowledge });
};

export const monthHandlers = {
  getPlanMonths,
  getPlanMonth,
  getMoneyMovements,
  getMoneyMovementsByMonth,
  getMoneyMovementGroups,
  getMoneyMovementGroupsByMonth,
};
