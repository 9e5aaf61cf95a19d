import {
  ALWAYS_GRANTED_SCOPE,
  OAUTH_SCOPES,
  type OAuthScope,
  SPENDING_LIMIT_PERIODS,
  type SpendingLimit,
  type SpendingLimitPeriod,
} from '@gw/contracts';
import type { ConsentValues } from './oauth-pages';

/** Far above any sensible limit of one key, far below what billing's numeric columns hold. */
export const MAX_LIMIT_AMOUNT_RUB = 10_000_000;
/** Roubles and kopecks: at most two decimals, a comma accepted as the separator. */
const AMOUNT = /^\d{1,8}(?:[.,]\d{1,2})?$/;

export type ConsentDecision =
  | { decision: 'decline' }
  | { decision: 'approve'; organizationId: string; scopes: OAuthScope[]; limits: SpendingLimit[] }
  | { decision: 'invalid'; error: string; values: ConsentValues };

/**
 * The consent form's fields (DESIGN.md §5.9) as a decision. `user:id` is granted whatever was
 * sent (its checkbox is disabled, so browsers do not send it); unknown scopes are refused rather
 * than dropped, so the key never holds less or more than the user saw.
 */
export function parseConsentForm(body: Record<string, unknown>): ConsentDecision {
  const decision = body.decision;
  if (decision === 'decline') return { decision: 'decline' };
  const sentScopes = Array.isArray(body.scopes)
    ? body.scopes
    : body.scopes === undefined
      ? []
      : [body.scopes];
  const values: ConsentValues = {
    ...(typeof body.organizationId === 'string' ? { organizationId: body.organizationId } : {}),
    scopes: sentScopes.filter((scope): scope is string => typeof scope === 'string'),
    limitPeriod: typeof body.limitPeriod === 'string' ? body.limitPeriod : 'none',
    limitAmount: typeof body.limitAmount === 'string' ? body.limitAmount.trim() : '',
  };
  const invalid = (error: string): ConsentDecision => ({ decision: 'invalid', error, values });
  if (decision !== 'approve') return invalid('Выберите «Разрешить» или «Отказать».');
  if (!values.organizationId) return invalid('Выберите организацию.');
  if (values.scopes.length !== sentScopes.length || values.scopes.some((s) => !isScope(s))) {
    return invalid('Неизвестный набор данных.');
  }
  const scopes = OAUTH_SCOPES.filter(
    (scope) => scope === ALWAYS_GRANTED_SCOPE || values.scopes.includes(scope),
  );
  const limit = parseLimit(values.limitPeriod, values.limitAmount);
  if (typeof limit === 'string') return invalid(limit);
  return { decision: 'approve', organizationId: values.organizationId, scopes, limits: limit ? [limit] : [] };
}

/** The limit, none, or why the fields do not make one. */
export function parseLimit(period: string, amount: string): SpendingLimit | null | string {
  if (period === 'none') return null;
  if (!isPeriod(period)) return 'Выберите период лимита.';
  if (amount === '') return 'Укажите сумму лимита в рублях.';
  if (!AMOUNT.test(amount)) {
    return 'Сумма лимита — положительное число рублей, не больше двух знаков после запятой, например 500 или 99,50.';
  }
  const normalized = amount.replace(',', '.');
  const value = Number(normalized);
  if (value <= 0) return 'Сумма лимита должна быть больше нуля.';
  if (value > MAX_LIMIT_AMOUNT_RUB) {
    return `Сумма лимита не может превышать ${MAX_LIMIT_AMOUNT_RUB.toLocaleString('ru-RU')} ₽.`;
  }
  return { period, amount: normalized };
}

function isScope(value: string): value is OAuthScope {
  return (OAUTH_SCOPES as readonly string[]).includes(value);
}

function isPeriod(value: string): value is SpendingLimitPeriod {
  return (SPENDING_LIMIT_PERIODS as readonly string[]).includes(value);
}
