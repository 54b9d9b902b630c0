/**
 * The demo household: accounts, category groups, merchants and recurring money flows the seed
 * generator draws from. Plain data; amounts in milliunits.
 */
import type { AccountType, GoalType } from '@plans-gateway/rest-contract';

export type AccountKey =
  | 'checking'
  | 'savings'
  | 'cash'
  | 'visa'
  | 'storeCard'
  | 'brokerage'
  | 'mortgage'
  | 'carLoan';

export interface AccountSpec {
  key: AccountKey;
  name: string;
  type: AccountType;
  onBudget: boolean;
  startingBalance: number;
  note: string | null;
  linked?: boolean;
  /** Paid down to zero in the first month, then closed. */
  closed?: boolean;
  debt?: { interestRate: number; minimumPayment: number; escrow: number };
}

export const ACCOUNTS: readonly AccountSpec[] = [
  {
    key: 'checking',
    name: 'Everyday Checking',
    type: 'checking',
    onBudget: true,
    startingBalance: 4_250_000,
    note: 'Joint account; both paychecks land here',
    linked: true,
  },
  {
    key: 'savings',
    name: 'Rainy Day Savings',
    type: 'savings',
    onBudget: true,
    startingBalance: 8_000_000,
    note: null,
  },
  {
    key: 'cash',
    name: 'Wallet Cash',
    type: 'cash',
    onBudget: true,
    startingBalance: 120_000,
    note: null,
  },
  {
    key: 'visa',
    name: 'Visa Rewards',
    type: 'creditCard',
    onBudget: true,
    startingBalance: -650_000,
    note: 'Autopay off; pay in full each month',
    linked: true,
  },
  {
    key: 'storeCard',
    name: 'Store Card',
    type: 'creditCard',
    onBudget: true,
    startingBalance: -200_000,
    note: 'Paid off and closed',
    closed: true,
  },
  {
    key: 'brokerage',
    name: 'Index Fund Brokerage',
    type: 'otherAsset',
    onBudget: false,
    startingBalance: 25_000_000,
    note: null,
  },
  {
    key: 'mortgage',
    name: 'Home Mortgage',
    type: 'mortgage',
    onBudget: false,
    startingBalance: -285_000_000,
    note: '30-year fixed',
    debt: { interestRate: 6_125, minimumPayment: 1_850_000, escrow: 350_000 },
  },
  {
    key: 'carLoan',
    name: 'Car Loan',
    type: 'autoLoan',
    onBudget: false,
    startingBalance: -26_500_000,
    note: null,
    debt: { interestRate: 4_900, minimumPayment: 425_000, escrow: 0 },
  },
];

export type CategoryKey = string;

export interface GoalSpec {
  type: GoalType;
  target: number;
  needsWholeAmount?: boolean;
  day?: number;
  cadence?: number;
  cadenceFrequency?: number;
  /** Target date as months after the current month (TBD goals). */
  targetInMonths?: number;
  snoozed?: boolean;
}

export interface CategorySpec {
  key: CategoryKey;
  name: string;
  note?: string;
  hidden?: boolean;
  goal?: GoalSpec;
  /** Fixed monthly assignment; otherwise the seed assigns close to the month's spending. */
  monthlyAssignment?: number;
}

export interface GroupSpec {
  name: string;
  hidden?: boolean;
  categories: CategorySpec[];
}

export const READY_TO_ASSIGN_NAME = 'Inflow: Ready to Assign';
export const INTERNAL_GROUP_NAME = 'Internal Master Category';
export const CREDIT_CARD_GROUP_NAME = 'Credit Card Payments';

export const CATEGORY_GROUPS: readonly GroupSpec[] = [
  {
    name: 'Bills',
    categories: [
      {
        key: 'mortgage',
        name: 'Mortgage',
        goal: {
          type: 'NEED',
          target: 1_850_000,
          needsWholeAmount: true,
          day: 1,
          cadence: 1,
          cadenceFrequency: 1,
        },
      },
      { key: 'electric', name: 'Electric' },
      { key: 'water', name: 'Water & Sewer' },
      { key: 'internet', name: 'Internet' },
      { key: 'phone', name: 'Phone' },
      { key: 'insurance', name: 'Car Insurance', note: 'Renews every March' },
      {
        key: 'carPayment',
        name: 'Car Payment',
        goal: { type: 'DEBT', target: 425_000, day: 10, cadence: 1, cadenceFrequency: 1 },
      },
    ],
  },
  {
    name: 'Everyday',
    categories: [
      {
        key: 'groceries',
        name: 'Groceries',
        goal: {
          type: 'NEED',
          target: 650_000,
          needsWholeAmount: false,
          cadence: 1,
          cadenceFrequency: 1,
        },
      },
      { key: 'dining', name: 'Dining Out' },
      { key: 'fuel', name: 'Fuel' },
      { key: 'household', name: 'Household Supplies' },
      { key: 'personal', name: 'Personal Care' },
      { key: 'kids', name: 'Kids Activities', note: 'Soccer, swim lessons' },
    ],
  },
  {
    name: 'Subscriptions',
    categories: [
      {
        key: 'streaming',
        name: 'Streaming',
        goal: { type: 'MF', target: 30_000, cadence: 1, cadenceFrequency: 1 },
      },
      { key: 'music', name: 'Music' },
      { key: 'cloud', name: 'Cloud Storage' },
    ],
  },
  {
    name: 'Irregular',
    categories: [
      { key: 'medical', name: 'Medical' },
      { key: 'carMaintenance', name: 'Car Maintenance' },
      { key: 'clothing', name: 'Clothing' },
      { key: 'homeRepairs', name: 'Home Repairs' },
      {
        key: 'gifts',
        name: 'Holiday Gifts',
        monthlyAssignment: 100_000,
        goal: {
          type: 'NEED',
          target: 1_200_000,
          needsWholeAmount: true,
          cadence: 13,
          cadenceFrequency: 1,
        },
      },
    ],
  },
  {
    name: 'Savings Goals',
    categories: [
      {
        key: 'emergency',
        name: 'Emergency Fund',
        monthlyAssignment: 250_000,
        goal: { type: 'TB', target: 10_000_000 },
      },
      {
        key: 'vacation',
        name: 'Summer Vacation',
        monthlyAssignment: 300_000,
        goal: { type: 'TBD', target: 3_000_000, targetInMonths: 7 },
      },
      {
        key: 'laptop',
        name: 'New Laptop',
        monthlyAssignment: 150_000,
        goal: { type: 'TBD', target: 1_800_000, targetInMonths: 10, snoozed: true },
      },
      { key: 'investing', name: 'Investing' },
    ],
  },
  {
    name: 'Archived',
    hidden: true,
    categories: [{ key: 'gym', name: 'Old Gym Membership', hidden: true }],
  },
];

export interface MerchantSpec {
  name: string;
  category: CategoryKey;
  /** Spending range per purchase (positive milliunits; stored as outflows). */
  min: number;
  max: number;
  weight: number;
  accounts: readonly AccountKey[];
  /** As the bank statement shows it (import_payee_name_original). */
  statementName: string;
  location?: readonly [latitude: string, longitude: string];
}

export const MERCHANTS: readonly MerchantSpec[] = [
  {
    name: 'Fresh Market',
    category: 'groceries',
    min: 18_000,
    max: 165_000,
    weight: 14,
    accounts: ['visa', 'checking'],
    statementName: 'FRESH MKT #0231 PORTLAND OR',
    location: ['45.523064', '-122.676483'],
  },
  {
    name: 'Corner Grocer',
    category: 'groceries',
    min: 6_000,
    max: 48_000,
    weight: 8,
    accounts: ['visa', 'cash'],
    statementName: 'CORNER GROCER',
    location: ['45.512794', '-122.679565'],
  },
  {
    name: 'Harvest Co-op',
    category: 'groceries',
    min: 22_000,
    max: 120_000,
    weight: 5,
    accounts: ['checking'],
    statementName: 'HARVEST COOP 0042',
    location: ['45.535110', '-122.651230'],
  },
  {
    name: 'Noodle Bar',
    category: 'dining',
    min: 14_000,
    max: 62_000,
    weight: 6,
    accounts: ['visa'],
    statementName: 'SQ *NOODLE BAR',
    location: ['45.519420', '-122.681990'],
  },
  {
    name: 'Blue Door Cafe',
    category: 'dining',
    min: 4_500,
    max: 21_000,
    weight: 7,
    accounts: ['visa', 'cash'],
    statementName: 'BLUE DOOR CAFE',
    location: ['45.526880', '-122.662010'],
  },
  {
    name: 'Pizza Palace',
    category: 'dining',
    min: 19_000,
    max: 54_000,
    weight: 4,
    accounts: ['visa'],
    statementName: 'PIZZA PALACE #12',
  },
  {
    name: 'Speedy Fuel',
    category: 'fuel',
    min: 28_000,
    max: 74_000,
    weight: 7,
    accounts: ['visa'],
    statementName: 'SPEEDY FUEL 5531',
    location: ['45.498210', '-122.640880'],
  },
  {
    name: 'Highway Gas',
    category: 'fuel',
    min: 31_000,
    max: 69_000,
    weight: 3,
    accounts: ['visa', 'checking'],
    statementName: 'HWY GAS N PORTLAND',
  },
  {
    name: 'HomeGoods Depot',
    category: 'household',
    min: 12_000,
    max: 140_000,
    weight: 4,
    accounts: ['visa'],
    statementName: 'HOMEGOODS DEPOT 88',
    location: ['45.551340', '-122.667450'],
  },
  {
    name: 'Dollar Corner',
    category: 'household',
    min: 3_000,
    max: 26_000,
    weight: 3,
    accounts: ['cash', 'visa'],
    statementName: 'DOLLAR CORNER',
  },
  {
    name: 'Pharmacy Plus',
    category: 'personal',
    min: 6_000,
    max: 58_000,
    weight: 4,
    accounts: ['visa', 'checking'],
    statementName: 'PHARMACY PLUS #7781',
    location: ['45.530070', '-122.698340'],
  },
  {
    name: 'Style Studio',
    category: 'personal',
    min: 35_000,
    max: 95_000,
    weight: 1,
    accounts: ['visa'],
    statementName: 'STYLE STUDIO SALON',
  },
  {
    name: 'Riverside Youth Soccer',
    category: 'kids',
    min: 40_000,
    max: 150_000,
    weight: 1,
    accounts: ['checking'],
    statementName: 'RIVERSIDE YOUTH SCCR',
  },
  {
    name: 'Aqua Swim School',
    category: 'kids',
    min: 60_000,
    max: 90_000,
    weight: 1,
    accounts: ['visa'],
    statementName: 'AQUA SWIM SCHOOL',
  },
  {
    name: 'Family Clinic',
    category: 'medical',
    min: 25_000,
    max: 180_000,
    weight: 1,
    accounts: ['checking', 'visa'],
    statementName: 'FAMILY CLINIC PC',
  },
  {
    name: 'Quick Lube',
    category: 'carMaintenance',
    min: 45_000,
    max: 120_000,
    weight: 1,
    accounts: ['visa'],
    statementName: 'QUICK LUBE 204',
  },
  {
    name: 'Tire Town',
    category: 'carMaintenance',
    min: 90_000,
    max: 640_000,
    weight: 1,
    accounts: ['visa'],
    statementName: 'TIRE TOWN INC',
  },
  {
    name: 'Threads Outlet',
    category: 'clothing',
    min: 20_000,
    max: 160_000,
    weight: 2,
    accounts: ['visa'],
    statementName: 'THREADS OUTLET',
    location: ['45.518830', '-122.677300'],
  },
  {
    name: 'Hardware Hut',
    category: 'homeRepairs',
    min: 8_000,
    max: 210_000,
    weight: 2,
    accounts: ['visa', 'checking'],
    statementName: 'HARDWARE HUT #3',
    location: ['45.545670', '-122.654320'],
  },
  {
    name: 'Gift Gallery',
    category: 'gifts',
    min: 15_000,
    max: 120_000,
    weight: 1,
    accounts: ['visa'],
    statementName: 'GIFT GALLERY',
  },
];

/** A big-box store whose receipts the seed splits across categories. */
export const SPLIT_MERCHANT = {
  name: 'MegaMart',
  statementName: 'MEGAMART SUPERCENTER 1140',
  location: ['45.560120', '-122.642870'] as const,
  categories: ['groceries', 'household', 'clothing', 'personal'] as const,
};

export interface RecurringSpec {
  payee: string;
  statementName: string;
  day: number;
  account: AccountKey;
  category: CategoryKey | null;
  min: number;
  max: number;
  memo?: string;
}

/** Monthly bills, paid from the same account on about the same day. */
export const MONTHLY_BILLS: readonly RecurringSpec[] = [
  {
    payee: 'City Power & Light',
    statementName: 'CITY POWER LIGHT ACH',
    day: 6,
    account: 'checking',
    category: 'electric',
    min: 62_000,
    max: 148_000,
  },
  {
    payee: 'Metro Water',
    statementName: 'METRO WATER BILL',
    day: 12,
    account: 'checking',
    category: 'water',
    min: 48_000,
    max: 71_000,
  },
  {
    payee: 'FiberNet',
    statementName: 'FIBERNET INTERNET',
    day: 15,
    account: 'visa',
    category: 'internet',
    min: 75_000,
    max: 75_000,
  },
  {
    payee: 'Wave Mobile',
    statementName: 'WAVE MOBILE AUTOPAY',
    day: 18,
    account: 'visa',
    category: 'phone',
    min: 85_000,
    max: 92_000,
  },
  {
    payee: 'StreamFlix',
    statementName: 'STREAMFLIX.COM',
    day: 3,
    account: 'visa',
    category: 'streaming',
    min: 15_490,
    max: 15_490,
  },
  {
    payee: 'ShowBox',
    statementName: 'SHOWBOX DIGITAL',
    day: 11,
    account: 'visa',
    category: 'streaming',
    min: 7_990,
    max: 7_990,
  },
  {
    payee: 'TuneCloud',
    statementName: 'TUNECLOUD PREMIUM',
    day: 9,
    account: 'visa',
    category: 'music',
    min: 10_990,
    max: 10_990,
  },
  {
    payee: 'DriveSafe Insurance',
    statementName: 'DRIVESAFE INS PREM',
    day: 25,
    account: 'checking',
    category: 'insurance',
    min: 128_000,
    max: 128_000,
  },
  {
    payee: 'SkyVault',
    statementName: 'SKYVAULT STORAGE',
    day: 21,
    account: 'visa',
    category: 'cloud',
    min: 2_990,
    max: 2_990,
    memo: '2 TB plan',
  },
];

export const EMPLOYER = { name: 'Acme Corp Payroll', statementName: 'ACME CORP PAYROLL PPD' };
export const MORTGAGE_LENDER = 'Home Lending Co';
export const CAR_LENDER = 'Auto Finance Direct';
export const MARKET_PAYEE = 'Market Change';
export const STARTING_BALANCE_PAYEE = 'Starting Balance';
export const ADJUSTMENT_PAYEES = [
  'Manual Balance Adjustment',
  'Reconciliation Balance Adjustment',
] as const;

export const MEMOS: readonly string[] = [
  'Weekly shop',
  'Birthday dinner',
  'Split with Sam',
  'Reimbursable - work trip',
  'Back to school',
  'Bulk buy',
  'Forgot the receipt',
  'Date night',
  'Road trip',
  'Returned one item',
  'Visiting grandparents',
  'Party supplies',
];

export const FLAG_NAMES = {
  red: 'Reimbursable',
  purple: 'Tax deductible',
  orange: 'Check receipt',
} as const;

export const MONTH_NOTES: readonly string[] = [
  'Car registration due',
  'Holiday travel month',
  'Three paychecks this month',
  'Started meal planning',
];
