import { BUDGET_HEADERS } from './budgets';

/** The budget headers of an admitted invoke, for Swagger's response `headers` (docs/usage.md, "Budgets"). */
export const BUDGET_RESPONSE_HEADERS = {
  [BUDGET_HEADERS.day]: {
    description:
      "USD left of the tightest daily budget (key or project) once this call's expected cost is reserved; only when a daily budget applies",
    schema: { type: 'string', example: '12.3456' },
  },
  [BUDGET_HEADERS.month]: {
    description: 'USD left of the tightest monthly budget (key or project), likewise; only when a monthly budget applies',
    schema: { type: 'string', example: '412.5' },
  },
};
