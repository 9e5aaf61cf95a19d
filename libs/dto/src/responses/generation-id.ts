export { GENERATION_ID } from '@gw/contracts';
