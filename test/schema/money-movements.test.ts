/**
 * Money movements and their groups against REST (`getMoneyMovements`, `getMoneyMovementsByMonth`,
 * `getMoneyMovementGroups`, `getMoneyMovementGroupsByMonth`): every mirrored field holds REST's
 * value, a movement names REST's categories and group, and a group holds the movements REST
 * files under it.
 */
import { describe, expect, it } from 'vitest';
import { MoneyMovementLinksDocument } from '../generated/operations.js';
import { expectListMirrors } from '../support/mirror.js';
import { allFields } from '../support/selection.js';
import { byId, expectLink, paritySuite } from './support/parity.js';

const parity = paritySuite();

type Rows = Record<string, unknown>[];

/** A month that has movements, and REST's answers for it. */
async function busyMonth() {
  const { planId } = parity;
  const movements = await parity.rest('getMoneyMovements', `/plans/${planId}/money_movements`);
  const month = movements.money_movements.find((m) => m.month !== null)!.month!;
  return { movements, month };
}

describe('money movements', () => {
  it('getMoneyMovements, getMoneyMovementsByMonth, getMoneyMovementGroups, getMoneyMovementGroupsByMonth', async () => {
    const { planId } = parity;
    const { movements: restMovements, month } = await busyMonth();
    const restGroups = await parity.rest(
      'getMoneyMovementGroups',
      `/plans/${planId}/money_movement_groups`,
    );
    const restByMonth = await parity.rest(
      'getMoneyMovementsByMonth',
      `/plans/${planId}/months/${month}/money_movements`,
    );
    const restGroupsByMonth = await parity.rest(
      'getMoneyMovementGroupsByMonth',
      `/plans/${planId}/months/${month}/money_movement_groups`,
    );
    const data = await parity.graph<{
      plan: {
        all: { nodes: Rows };
        inMonth: { nodes: Rows };
        groups: Rows;
        groupsInMonth: Rows;
      };
    }>(
      `query($planId: PlanId!, $month: MonthSelector!) { plan(id: $planId) {
        all: moneyMovements(first: 500) { nodes ${allFields('MoneyMovement')} }
        inMonth: moneyMovements(month: $month, first: 500) { nodes ${allFields('MoneyMovement')} }
        groups: moneyMovementGroups ${allFields('MoneyMovementGroup')}
        groupsInMonth: moneyMovementGroups(month: $month) ${allFields('MoneyMovementGroup')} } }`,
      { month },
    );
    expectListMirrors(
      restMovements.money_movements as never,
      data.plan.all.nodes,
      'moneyMovements',
    );
    expectListMirrors(
      restByMonth.money_movements as never,
      data.plan.inMonth.nodes,
      'moneyMovements(month)',
    );
    expectListMirrors(
      restGroups.money_movement_groups as never,
      data.plan.groups,
      'moneyMovementGroups',
    );
    expectListMirrors(
      restGroupsByMonth.money_movement_groups as never,
      data.plan.groupsInMonth,
      'moneyMovementGroups(month)',
    );
  });

  it("a movement names REST's categories and group; a group and a month hold REST's movements", async () => {
    const { planId } = parity;
    const { movements: restMovements, month } = await busyMonth();
    const categories = byId(
      (await parity.rest('getCategories', `/plans/${planId}/categories`)).category_groups.flatMap(
        (group) => group.categories,
      ),
    );
    const restByMonth = await parity.rest(
      'getMoneyMovementsByMonth',
      `/plans/${planId}/months/${month}/money_movements`,
    );
    const restGroupsByMonth = await parity.rest(
      'getMoneyMovementGroupsByMonth',
      `/plans/${planId}/months/${month}/money_movement_groups`,
    );
    const { plan } = await parity.graph(MoneyMovementLinksDocument, { month });
    const movements = plan!.moneyMovements.nodes;
    expect(movements.length).toBe(restMovements.money_movements.length);
    for (const movement of movements) {
      const where = `moneyMovement ${movement.id}`;
      expectLink(
        movement.fromCategory,
        movement.fromCategoryId,
        categories,
        `${where}.fromCategory`,
      );
      expectLink(movement.toCategory, movement.toCategoryId, categories, `${where}.toCategory`);
      expect(movement.group?.id ?? null, `${where}.group`).toBe(movement.moneyMovementGroupId);
    }
    const inGroup = new Map<string, string[]>();
    for (const movement of restMovements.money_movements) {
      if (!movement.money_movement_group_id) continue;
      inGroup.set(movement.money_movement_group_id, [
        ...(inGroup.get(movement.money_movement_group_id) ?? []),
        movement.id,
      ]);
    }
    expect(inGroup.size).toBeGreaterThan(0);
    for (const group of plan!.moneyMovementGroups) {
      expect(group.moneyMovements.map((m) => m.id).sort(), `group ${group.id}`).toEqual(
        (inGroup.get(group.id) ?? []).sort(),
      );
    }
    const ids = (rows: readonly { id: string }[]) => rows.map((row) => row.id).sort();
    expect(ids(plan!.month!.moneyMovements.nodes)).toEqual(ids(restByMonth.money_movements));
    expect(ids(plan!.month!.moneyMovementGroups)).toEqual(
      ids(restGroupsByMonth.money_movement_groups),
    );
  });
});
