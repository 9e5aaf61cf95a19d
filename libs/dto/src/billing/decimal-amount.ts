export { CREDIT_AMOUNT_PATTERN, isLimitAmount, isPositiveCreditAmount } from '@gw/contracts';
